import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Refresh token reuse (realm `revokeRefreshToken` / `refreshTokenMaxReuse`, ADR 13):
 *
 * - `client_session.refresh_state`: JSON, per refresh token chain (the `reuse_id` claim, '' for a
 *   token without one) the id of the refresh token last used, how often it was used and the `iat` of
 *   the refresh token issued last: Keycloak's REFRESH_TOKEN_PREFIX / REFRESH_TOKEN_USE_PREFIX /
 *   REFRESH_TOKEN_LAST_REFRESH_PREFIX client session notes. It lives and dies with the client session.
 * - `client_session.refresh_version`: bumped by every write of `refresh_state`; a write is a
 *   conditional UPDATE on the version read, so two nodes refreshing with one token cannot both count
 *   the same use.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('client_session', 'refresh_state', { type: DataTypes.TEXT, allowNull: true });
  await qi.addColumn('client_session', 'refresh_version', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeColumn('client_session', 'refresh_version');
  await qi.removeColumn('client_session', 'refresh_state');
}
