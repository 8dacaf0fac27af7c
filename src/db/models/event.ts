import { DataTypes, Model, type Sequelize } from 'sequelize';
import { idColumn, jsonColumn, ref, str } from './common';

/** A user event (LOGIN, LOGIN_ERROR, ...). `details` is a string map. */
export class EventModel extends Model {
  declare id: string;
  declare realmId: string;
  declare time: number;
  declare type: string;
  declare clientId: string | null;
  declare userId: string | null;
  declare sessionId: string | null;
  declare ipAddress: string | null;
  declare error: string | null;
  declare details: Record<string, string>;
}

/** An admin event: who changed which resource how. `representation` is the JSON text of the request body. */
export class AdminEventModel extends Model {
  declare id: string;
  declare realmId: string;
  declare time: number;
  declare operationType: string;
  declare resourceType: string;
  declare resourcePath: string | null;
  declare representation: string | null;
  declare error: string | null;
  declare details: Record<string, string> | null;
  declare authRealmId: string | null;
  declare authClientId: string | null;
  declare authUserId: string | null;
  declare ipAddress: string | null;
}

export function initEvents(sequelize: Sequelize) {
  EventModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      time: { type: DataTypes.BIGINT, allowNull: false },
      type: str(),
      clientId: str(),
      userId: str(),
      sessionId: str(),
      ipAddress: str(),
      error: str(),
      details: jsonColumn('details', {}),
    },
    { sequelize, tableName: 'event_entity', underscored: true, timestamps: false },
  );
  AdminEventModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      time: { type: DataTypes.BIGINT, allowNull: false },
      operationType: str(),
      resourceType: str(64),
      resourcePath: str(2550),
      representation: { type: DataTypes.TEXT, allowNull: true },
      error: str(),
      details: jsonColumn('details', null),
      authRealmId: str(),
      authClientId: str(),
      authUserId: str(),
      ipAddress: str(),
    },
    { sequelize, tableName: 'admin_event_entity', underscored: true, timestamps: false },
  );
}
