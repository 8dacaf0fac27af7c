import { Model, type Sequelize } from 'sequelize';
import { bool, idColumn, jsonColumn, ref, str } from './common';

/**
 * An identity provider of a realm (Keycloak's identity_provider entity, config reference §8.1).
 * `internalId` is the primary key; the alias is unique per realm (unique index). Users' links
 * (federated_identity) refer to the alias, mappers to the internal id.
 */
export class IdentityProviderModel extends Model {
  declare internalId: string;
  declare realmId: string;
  declare alias: string;
  declare providerId: string;
  declare displayName: string | null;
  declare enabled: boolean;
  declare trustEmail: boolean;
  declare storeToken: boolean;
  declare addReadTokenRoleOnCreate: boolean;
  declare authenticateByDefault: boolean;
  declare linkOnly: boolean;
  declare hideOnLogin: boolean;
  declare firstBrokerLoginFlowAlias: string | null;
  declare postBrokerLoginFlowAlias: string | null;
  declare organizationId: string | null;
  declare config: Record<string, string>;
}

/** A mapper of an identity provider (Keycloak's identity_provider_mapper entity). */
export class IdpMapperModel extends Model {
  declare id: string;
  declare realmId: string;
  /** Internal id of the identity provider. */
  declare identityProviderId: string;
  declare name: string;
  declare mapperType: string;
  declare config: Record<string, string>;
}

export function initIdentityProviders(sequelize: Sequelize) {
  IdentityProviderModel.init(
    {
      internalId: idColumn(),
      realmId: ref(),
      alias: str(255, false),
      providerId: str(255, false),
      displayName: str(255),
      enabled: bool(true),
      trustEmail: bool(),
      storeToken: bool(),
      addReadTokenRoleOnCreate: bool(),
      authenticateByDefault: bool(),
      linkOnly: bool(),
      hideOnLogin: bool(),
      firstBrokerLoginFlowAlias: str(255),
      postBrokerLoginFlowAlias: str(255),
      organizationId: str(36),
      config: jsonColumn('config', {}),
    },
    {
      sequelize,
      tableName: 'identity_provider',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'uq_identity_provider_realm_alias', unique: true, fields: ['realm_id', 'alias'] }],
    },
  );
  IdpMapperModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      identityProviderId: ref(),
      name: str(255, false),
      mapperType: str(255, false),
      config: jsonColumn('config', {}),
    },
    {
      sequelize,
      tableName: 'idp_mapper',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'uq_idp_mapper_idp_name', unique: true, fields: ['identity_provider_id', 'name'] },
        { name: 'ix_idp_mapper_realm', fields: ['realm_id'] },
      ],
    },
  );
}
