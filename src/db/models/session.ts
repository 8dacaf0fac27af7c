import { DataTypes, Model, type Sequelize } from 'sequelize';
import { bool, ref, str } from './common';

/** A client's part in a user session (online or offline): when the client last used it. */
export class ClientSessionModel extends Model {
  declare userSessionId: string;
  declare clientId: string;
  declare realmId: string;
  declare offline: boolean;
  declare timestamp: number;
  /** Refresh token reuse state per `reuse_id` (JSON; see services/tokens/refresh-reuse.ts), null until a refresh counts. */
  declare refreshState: string | null;
  /** Bumped on every write of refreshState (the conditional UPDATE's guard). */
  declare refreshVersion: number;
}

export function initClientSession(sequelize: Sequelize) {
  ClientSessionModel.init(
    {
      userSessionId: { ...ref(), primaryKey: true },
      clientId: { ...ref(), primaryKey: true },
      realmId: ref(),
      offline: bool(false),
      timestamp: { type: DataTypes.INTEGER, allowNull: false },
      refreshState: { type: DataTypes.TEXT, allowNull: true },
      refreshVersion: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    },
    {
      sequelize,
      tableName: 'client_session',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_client_session_client', fields: ['client_id', 'offline'] },
        { name: 'ix_client_session_realm', fields: ['realm_id', 'offline'] },
      ],
    },
  );
}

/** Brute-force record of one user: failures, last failure (ms) and IP, lockout end (s). */
export class LoginFailureModel extends Model {
  declare userId: string;
  declare realmId: string;
  declare numFailures: number;
  declare numTemporaryLockouts: number;
  declare lastFailure: number;
  declare lastIpFailure: string | null;
  declare failedLoginNotBefore: number;
}

export function initLoginFailure(sequelize: Sequelize) {
  // Fresh objects per attribute: Sequelize writes the column name into the definition it is given.
  const int = () => ({ type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  const big = () => ({ type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 });
  LoginFailureModel.init(
    {
      userId: { ...str(300, false), primaryKey: true },
      realmId: ref(),
      numFailures: int(),
      numTemporaryLockouts: int(),
      lastFailure: big(),
      lastIpFailure: { ...str(64), field: 'last_ip_failure' },
      failedLoginNotBefore: big(),
    },
    {
      sequelize,
      tableName: 'login_failure',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'ix_login_failure_realm', fields: ['realm_id'] }],
    },
  );
}
