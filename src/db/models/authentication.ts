import { DataTypes, Model, QueryTypes, type Sequelize } from 'sequelize';
import { bool, idColumn, jsonColumn, ref, str } from './common';

/** An authentication flow (top-level or sub-flow) of a realm; `ord` is its creation order. */
export class AuthFlowModel extends Model {
  declare id: string;
  declare realmId: string;
  declare alias: string;
  declare description: string | null;
  declare providerId: string;
  declare topLevel: boolean;
  declare builtIn: boolean;
  declare ord: number;
}

/** One step of a flow: an authenticator, or a sub-flow (`authenticatorFlow`, `subFlowId`). */
export class AuthExecutionModel extends Model {
  declare id: string;
  declare realmId: string;
  declare parentFlowId: string;
  declare authenticator: string | null;
  declare authenticatorFlow: boolean;
  declare subFlowId: string | null;
  declare requirement: string;
  declare priority: number;
  declare configId: string | null;
}

/** An authenticator config (alias + string map) linked from executions. */
export class AuthenticatorConfigModel extends Model {
  declare id: string;
  declare realmId: string;
  declare alias: string | null;
  declare config: Record<string, string>;
}

/** Deletes the flows, executions and authenticator configs of a realm (bulk statements). */
export async function deleteRealmAuthenticationRows(sequelize: Sequelize, realmId: string): Promise<void> {
  for (const table of ['authentication_execution', 'authenticator_config', 'authentication_flow']) {
    await sequelize.query(`DELETE FROM ${table} WHERE realm_id = :r`, { replacements: { r: realmId }, type: QueryTypes.DELETE });
  }
}

export function initAuthentication(sequelize: Sequelize) {
  const opts = { sequelize, underscored: true, timestamps: false };
  AuthFlowModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      alias: str(255, false),
      description: str(1024),
      providerId: str(64, false),
      topLevel: bool(false),
      builtIn: bool(false),
      ord: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    },
    { ...opts, tableName: 'authentication_flow' },
  );
  AuthExecutionModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      parentFlowId: ref(),
      authenticator: str(255),
      authenticatorFlow: bool(false),
      subFlowId: ref(true),
      requirement: str(32, false),
      priority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      configId: ref(true),
    },
    { ...opts, tableName: 'authentication_execution' },
  );
  AuthenticatorConfigModel.init(
    { id: idColumn(), realmId: ref(), alias: str(255), config: jsonColumn('config', {}) },
    { ...opts, tableName: 'authenticator_config' },
  );
}
