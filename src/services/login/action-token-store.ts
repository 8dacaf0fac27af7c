import { QueryTypes } from 'sequelize';
import { nowSeconds } from '../../core/clock';
import { isUniqueViolation } from '../../core/db-errors';
import type { Db } from '../../db';
import { fastSelect } from '../../db/fast-select';
import type { RealmModel } from '../../db/models/realm';
import { TokenEvent } from '../tokens/token-events';
import { removeAuthSession } from './auth-sessions';
import type { Message } from './authorize';
import type { LoginContext } from './flow-engine';

/**
 * The used-action-token store (table `used_action_token`, migration 0019): the `jti` of every e-mail
 * link that has done its work, kept until the link would have expired anyway, so a link works once
 * on every node (Keycloak's single-use object store). Expired rows are purged as links are used.
 */

/** Notes of an authentication session started by an action token (Keycloak's auth notes of the same role). */
export const ACTION_NOTES = {
  /** The login ends with an information page after the required actions, not with a code. */
  END_AFTER_REQUIRED_ACTIONS: 'END_AFTER_REQUIRED_ACTIONS',
  /** The used token's id and expiry, recorded when the actions are done. */
  TOKEN_ID: 'ACTION_TOKEN_ID',
  TOKEN_EXP: 'ACTION_TOKEN_EXP',
  /** The token's `typ` (execute-actions, verify-email, reset-credentials). */
  TOKEN_TYPE: 'ACTION_TOKEN_TYPE',
  /** JSON list of the required actions the token carries (performed besides the user's own). */
  TOKEN_ACTIONS: 'ACTION_TOKEN_ACTIONS',
  /** The message key of the final page. */
  DONE_MESSAGE: 'ACTION_TOKEN_DONE_MESSAGE',
  /** The admin-given redirect URI the final page links back to. */
  REDIRECT_URI: 'ACTION_TOKEN_REDIRECT_URI',
} as const;

/**
 * Records that the token `jti` was used. False when it had been used already (two uses at once: one
 * insert wins on the primary key).
 */
export async function markActionTokenUsed(db: Db, realm: RealmModel, jti: string, exp: number): Promise<boolean> {
  const now = nowSeconds();
  try {
    await db.sequelize.query('INSERT INTO used_action_token (id, realm_id, expires_at) VALUES (:id, :realmId, :expiresAt)', {
      replacements: { id: jti, realmId: realm.id, expiresAt: Math.max(exp, now) + 1 },
      type: QueryTypes.INSERT,
    });
  } catch (e) {
    if (isUniqueViolation(e)) return false;
    throw e;
  }
  await purgeUsedActionTokens(db, now);
  return true;
}

/** True when the token `jti` has been used (one primary-key read). */
export async function isActionTokenUsed(db: Db, jti: string): Promise<boolean> {
  const rows = await fastSelect<{ n: number }>(db.sequelize, 'SELECT 1 AS n FROM used_action_token WHERE id = :id', { id: jti });
  return rows.length > 0;
}

/** Removes the rows of tokens that have expired (index `ix_used_action_token_expiry`). */
export async function purgeUsedActionTokens(db: Db, now = nowSeconds()): Promise<void> {
  await db.sequelize.query('DELETE FROM used_action_token WHERE expires_at < :now', { replacements: { now }, type: QueryTypes.DELETE });
}

/** The page an e-mail link's login ends with. */
export type ActionTokenEndPage =
  | { page: 'info'; status: number; title: Message; message: Message; backUrl?: string }
  | { page: 'error'; status: number; message: Message };

/**
 * The end of an e-mail link's login (Keycloak's END_AFTER_REQUIRED_ACTIONS): the token is recorded as
 * used, the authentication session removed, and the user sees "account updated" (or "e-mail
 * verified") with a link back to the admin-given redirect URI. A token another tab used meanwhile
 * ends on Keycloak's "action expired" page.
 */
export async function finishActionTokenLogin(ctx: LoginContext): Promise<ActionTokenEndPage> {
  const notes = ctx.data.notes;
  const jti = notes[ACTION_NOTES.TOKEN_ID];
  await removeAuthSession(ctx.db, ctx.authSession.id);
  const typ = notes[ACTION_NOTES.TOKEN_TYPE];
  const ev = new TokenEvent(ctx.db, ctx.realm, typ === 'reset-credentials' ? 'RESET_PASSWORD' : 'EXECUTE_ACTIONS', ctx.ipAddress);
  ev.clientId = ctx.client.clientId;
  ev.userId = ctx.user?.id ?? null;
  ev.detail('username', ctx.user?.username).detail('token_id', jti).detail('redirect_uri', notes[ACTION_NOTES.REDIRECT_URI]);
  if (jti && !(await markActionTokenUsed(ctx.db, ctx.realm, jti, Number(notes[ACTION_NOTES.TOKEN_EXP]) || nowSeconds()))) {
    await ev.error('expired_code');
    return { page: 'error', status: 400, message: { key: 'expiredActionMessage' } };
  }
  // The other links' events come from their steps (VERIFY_EMAIL at the link, RESET_PASSWORD with the new password).
  if (typ === 'execute-actions') await ev.success();
  const key = notes[ACTION_NOTES.DONE_MESSAGE] || 'accountUpdatedMessage';
  return { page: 'info', status: 200, title: { key }, message: { key }, backUrl: notes[ACTION_NOTES.REDIRECT_URI] || undefined };
}
