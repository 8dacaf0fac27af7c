import { Model, type Sequelize } from 'sequelize';
import { bool, idColumn, jsonColumn, ref, str } from './common';

/**
 * Authorization services (Keycloak's resource_server* entities). The resource server's id is its
 * client's id. A permission is a policy of type `resource` or `scope`; its resources, scopes and
 * the policies it applies are link rows (resource_policy, scope_policy, associated_policy).
 */
export class ResourceServerModel extends Model {
  declare id: string;
  declare realmId: string;
  declare policyEnforcementMode: string;
  declare decisionStrategy: string;
  declare allowRemoteResourceManagement: boolean;
}

/** A protected resource; `owner` is the resource server's id (the client) or a user's id. */
export class AuthzResourceModel extends Model {
  declare id: string;
  declare resourceServerId: string;
  declare name: string;
  declare displayName: string | null;
  declare type: string | null;
  declare iconUri: string | null;
  declare owner: string;
  declare ownerManagedAccess: boolean;
  declare uris: string[];
  declare attributes: Record<string, string[]>;
}

export class AuthzScopeModel extends Model {
  declare id: string;
  declare resourceServerId: string;
  declare name: string;
  declare displayName: string | null;
  declare iconUri: string | null;
}

/** A policy or permission; `config` is Keycloak's string map (role lists etc. are JSON text in it). */
export class AuthzPolicyModel extends Model {
  declare id: string;
  declare resourceServerId: string;
  declare name: string;
  declare description: string | null;
  declare type: string;
  declare decisionStrategy: string;
  declare logic: string;
  declare owner: string | null;
  declare config: Record<string, string>;
}

export class AuthzResourceScopeModel extends Model {
  declare resourceId: string;
  declare scopeId: string;
}
export class AuthzResourcePolicyModel extends Model {
  declare resourceId: string;
  declare policyId: string;
}
export class AuthzScopePolicyModel extends Model {
  declare scopeId: string;
  declare policyId: string;
}
export class AuthzAssociatedPolicyModel extends Model {
  declare policyId: string;
  declare associatedPolicyId: string;
}

const opts = (sequelize: Sequelize, tableName: string) => ({ sequelize, tableName, underscored: true, timestamps: false });
const key = () => ({ ...ref(), primaryKey: true });

export function initAuthorization(sequelize: Sequelize) {
  ResourceServerModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      policyEnforcementMode: str(20, false),
      decisionStrategy: str(20, false),
      allowRemoteResourceManagement: bool(),
    },
    opts(sequelize, 'resource_server'),
  );
  AuthzResourceModel.init(
    {
      id: idColumn(),
      resourceServerId: ref(),
      name: str(255, false),
      displayName: str(),
      type: str(),
      iconUri: str(),
      owner: str(255, false),
      ownerManagedAccess: bool(),
      uris: jsonColumn('uris', []),
      attributes: jsonColumn('attributes', {}),
    },
    opts(sequelize, 'resource_server_resource'),
  );
  AuthzScopeModel.init(
    { id: idColumn(), resourceServerId: ref(), name: str(255, false), displayName: str(), iconUri: str() },
    opts(sequelize, 'resource_server_scope'),
  );
  AuthzPolicyModel.init(
    {
      id: idColumn(),
      resourceServerId: ref(),
      name: str(255, false),
      description: str(),
      type: str(255, false),
      decisionStrategy: str(20, false),
      logic: str(20, false),
      owner: str(),
      config: jsonColumn('config', {}),
    },
    opts(sequelize, 'resource_server_policy'),
  );
  AuthzResourceScopeModel.init({ resourceId: key(), scopeId: key() }, opts(sequelize, 'resource_scope'));
  AuthzResourcePolicyModel.init({ resourceId: key(), policyId: key() }, opts(sequelize, 'resource_policy'));
  AuthzScopePolicyModel.init({ scopeId: key(), policyId: key() }, opts(sequelize, 'scope_policy'));
  AuthzAssociatedPolicyModel.init({ policyId: key(), associatedPolicyId: key() }, opts(sequelize, 'associated_policy'));
}
