import { Op, QueryTypes } from 'sequelize';
import type { Db } from '../db';
import type { RequestContext } from './context';

/**
 * Rows hanging off a user or a client that other features own (sessions, client sessions, consents,
 * federated identities, login failures): one place that deletes them, used when a user, a client
 * or a client's service-account user goes. Runs inside the caller's transaction.
 */
type Where = Record<string, unknown>;

/** Deletes user sessions (and their client sessions) matching `where`. */
async function deleteSessions(ctx: RequestContext, where: Where): Promise<void> {
  const { UserSession, ClientSession } = ctx.db.models;
  const sessionIds = (await UserSession.findAll({ where, attributes: ['id'] })).map((r) => r.id);
  if (sessionIds.length) await ClientSession.destroy({ where: { userSessionId: { [Op.in]: sessionIds } } });
  await UserSession.destroy({ where });
}

/** Deletes consents (and their scope grants) matching `where`. */
async function deleteConsents(ctx: RequestContext, where: Where): Promise<void> {
  const { UserConsent, UserConsentClientScope } = ctx.db.models;
  const consentIds = (await UserConsent.findAll({ where, attributes: ['id'] })).map((r) => r.id);
  if (consentIds.length) await UserConsentClientScope.destroy({ where: { userConsentId: { [Op.in]: consentIds } } });
  await UserConsent.destroy({ where });
}

/** Deletes a user and every row of it. Inside a transaction. */
export async function deleteUserRows(ctx: RequestContext, userId: string): Promise<void> {
  await deleteSessions(ctx, { userId });
  await deleteConsents(ctx, { userId });
  const m = ctx.db.models;
  for (const table of [
    m.UserAttribute,
    m.UserRequiredAction,
    m.Credential,
    m.UserRoleMapping,
    m.UserGroupMembership,
    m.FederatedIdentity,
    m.LoginFailure,
    // No foreign key since migration 0036 (transient federated users' ids live there too).
    m.AuthSession,
  ]) {
    await (table as unknown as { destroy(o: object): Promise<number> }).destroy({ where: { userId } });
  }
  await ctx.db.models.User.destroy({ where: { id: userId } });
}

/**
 * Deletes what the transient users of a removed user-storage provider left (ADR 46): their sessions,
 * consents, identity-provider links, brute-force records and logins in progress, all rows whose
 * user_id is a StorageId of the provider (Keycloak's UserFederatedStorageProvider#preRemove of the
 * component). Inside a transaction.
 */
export async function deleteStorageProviderRows(ctx: RequestContext, componentId: string): Promise<void> {
  // The ids starting with `f:{componentId}:` (`;` follows `:`): a range, so no LIKE escaping and the user_id indexes serve.
  const where = { userId: { [Op.gte]: `f:${componentId}:`, [Op.lt]: `f:${componentId};` } };
  await deleteSessions(ctx, where);
  await deleteConsents(ctx, where);
  const m = ctx.db.models;
  for (const table of [m.FederatedIdentity, m.LoginFailure, m.AuthSession]) {
    await (table as unknown as { destroy(o: object): Promise<number> }).destroy({ where });
  }
}

/** Deletes the sessions, client sessions and consents of a client. Inside a transaction. */
export async function deleteClientUsage(ctx: RequestContext, clientUuid: string): Promise<void> {
  await deleteSessions(ctx, { clientId: clientUuid });
  await ctx.db.models.ClientSession.destroy({ where: { clientId: clientUuid } });
  await deleteConsents(ctx, { clientId: clientUuid });
}

/** Tables holding rows of a realm, directly or through a parent row; deleted children first. */
const REALM_CASCADE: Array<[string, string]> = [
  ['user_attribute', 'user_id IN (SELECT id FROM user_entity WHERE realm_id = :r)'],
  ['user_required_action', 'user_id IN (SELECT id FROM user_entity WHERE realm_id = :r)'],
  ['credential', 'user_id IN (SELECT id FROM user_entity WHERE realm_id = :r)'],
  [
    'user_role_mapping',
    'user_id IN (SELECT id FROM user_entity WHERE realm_id = :r) OR role_id IN (SELECT id FROM role WHERE realm_id = :r)',
  ],
  ['user_group_membership', 'user_id IN (SELECT id FROM user_entity WHERE realm_id = :r)'],
  ['group_role_mapping', 'group_id IN (SELECT id FROM keycloak_group WHERE realm_id = :r)'],
  ['composite_role', 'composite_id IN (SELECT id FROM role WHERE realm_id = :r) OR child_id IN (SELECT id FROM role WHERE realm_id = :r)'],
  [
    'scope_mapping',
    'role_id IN (SELECT id FROM role WHERE realm_id = :r) OR owner_id IN (SELECT id FROM client WHERE realm_id = :r) OR owner_id IN (SELECT id FROM client_scope WHERE realm_id = :r)',
  ],
  [
    'protocol_mapper',
    'client_id IN (SELECT id FROM client WHERE realm_id = :r) OR client_scope_id IN (SELECT id FROM client_scope WHERE realm_id = :r)',
  ],
  ['client_scope_client', 'client_id IN (SELECT id FROM client WHERE realm_id = :r)'],
  ['realm_default_client_scope', 'realm_id = :r'],
  ['realm_default_group', 'realm_id = :r'],
  ['client_initial_access', 'realm_id = :r'],
  // By the client: a transient federated user's consent has no user_entity row (migration 0039).
  [
    'user_consent_client_scope',
    'user_consent_id IN (SELECT id FROM user_consent WHERE client_id IN (SELECT id FROM client WHERE realm_id = :r))',
  ],
  ['user_consent', 'client_id IN (SELECT id FROM client WHERE realm_id = :r)'],
  ['federated_identity', 'realm_id = :r'],
  ['idp_mapper', 'realm_id = :r'],
  ['identity_provider', 'realm_id = :r'],
  ['client_session', 'realm_id = :r'],
  ['login_failure', 'realm_id = :r'],
  ['user_session', 'realm_id = :r'],
  ['event_entity', 'realm_id = :r'],
  ['admin_event_entity', 'realm_id = :r'],
  ['user_entity', 'realm_id = :r'],
  ['keycloak_group', 'realm_id = :r'],
  ['role', 'realm_id = :r'],
  ['client_scope', 'realm_id = :r'],
  ['client', 'realm_id = :r'],
  ['component', 'realm_id = :r'],
  ['required_action_provider', 'realm_id = :r'],
  ['authentication_execution', 'realm_id = :r'],
  ['authenticator_config', 'realm_id = :r'],
  ['authentication_flow', 'realm_id = :r'],
  ['realm_localization', 'realm_id = :r'],
];

/** Deletes a client and everything hanging off it (roles, mappings, scope links, mappers). */
export async function deleteClientRows(db: Db, clientId: string): Promise<void> {
  const q = (sql: string) => db.sequelize.query(sql, { replacements: { c: clientId }, type: QueryTypes.DELETE });
  await q('DELETE FROM user_role_mapping WHERE role_id IN (SELECT id FROM role WHERE client_id = :c)');
  await q('DELETE FROM group_role_mapping WHERE role_id IN (SELECT id FROM role WHERE client_id = :c)');
  await q(
    'DELETE FROM composite_role WHERE composite_id IN (SELECT id FROM role WHERE client_id = :c) OR child_id IN (SELECT id FROM role WHERE client_id = :c)',
  );
  await q('DELETE FROM scope_mapping WHERE role_id IN (SELECT id FROM role WHERE client_id = :c) OR owner_id = :c');
  await q('DELETE FROM role WHERE client_id = :c');
  await q('DELETE FROM protocol_mapper WHERE client_id = :c');
  await q('DELETE FROM client_scope_client WHERE client_id = :c');
  await q('DELETE FROM client WHERE id = :c');
}

/** Deletes every row of a realm (not the realm row itself), children first. Inside a transaction. */
export async function deleteRealmRows(db: Db, realmId: string): Promise<void> {
  for (const [table, where] of REALM_CASCADE) {
    await db.sequelize.query(`DELETE FROM ${table} WHERE ${where}`, { replacements: { r: realmId }, type: QueryTypes.DELETE });
  }
}
