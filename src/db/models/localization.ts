import { DataTypes, Model, type Sequelize } from 'sequelize';
import { idColumn, ref, str } from './common';

/** One realm localization text: the value of a message key in a locale (unique per realm, locale, key). */
export class RealmLocalizationModel extends Model {
  declare id: string;
  declare realmId: string;
  declare locale: string;
  declare key: string;
  declare value: string;
}

export function initRealmLocalization(sequelize: Sequelize) {
  RealmLocalizationModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      locale: str(255, false),
      key: { ...str(255, false), field: 'message_key' },
      value: { type: DataTypes.TEXT, allowNull: false },
    },
    {
      sequelize,
      tableName: 'realm_localization',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'uq_realm_localization_realm_locale_key', unique: true, fields: ['realm_id', 'locale', 'message_key'] }],
    },
  );
}
