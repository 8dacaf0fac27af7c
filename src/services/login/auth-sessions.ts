import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { nowSeconds } from '../../core/clock';
import type { Db } from '../../db';
import type { AuthCodeModel, AuthSessionModel } from '../../db/models/login';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';

/**
 * The login store: authentication sessions (a login in progress) and authorization codes are rows,
 * so every node sees the same login. A browser holds the root id of its authentication sessions in
 * its AUTH_SESSION_ID cookie; each tab's login is one row under that root. Every read ignores expired
 * rows; they are purged in small batches as logins start.
 */
const log = getLogger('idserver.services.login');

const seconds = (realm: RealmModel, key: string, dflt: number) => {
  const v = Number(realm.settings[key] ?? dflt);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};

/** How long a login form may stay open (accessCodeLifespanLogin, 30 min by default). */
export const loginLifespan = (realm: RealmModel) => seconds(realm, 'accessCodeLifespanLogin', 1800);
/** How long a user action page may stay open (accessCodeLifespanUserAction, 5 min by default). */
export const userActionLifespan = (realm: RealmModel) => seconds(realm, 'accessCodeLifespanUserAction', 300);
/** How long an authorization code lives (accessCodeLifespan, 60 s by default). */
export const codeLifespan = (realm: RealmModel) => seconds(realm, 'accessCodeLifespan', 60);

/** A fresh random secret, URL-safe (session codes, authorization codes). */
export const secret = (bytes = 32) => randomBytes(bytes).toString('base64url');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** What an authentication session remembers between requests. */
export interface AuthSessionData {
  /** The validated authorization request. */
  request: Record<string, string>;
  /** Execution id → status (SUCCESS, FAILED, SKIPPED, ATTEMPTED, CHALLENGED, EVALUATED_TRUE, EVALUATED_FALSE). */
  statuses: Record<string, string>;
  /** Authenticator notes (the attempted username, the user session found by the cookie ...). */
  notes: Record<string, string>;
}

let started = 0;

/** Starts a login of `clientId` under the browser's root id (a new root when it has none). */
export async function createAuthSession(
  db: Db,
  realm: RealmModel,
  rootId: string | undefined,
  clientId: string,
  request: Record<string, string>,
): Promise<AuthSessionModel> {
  const row = await db.models.AuthSession.create({
    id: randomUUID(),
    rootId: rootId ?? randomUUID(),
    realmId: realm.id,
    clientId,
    userId: null,
    sessionCode: secret(24),
    expires: nowSeconds() + loginLifespan(realm),
    data: { request, statuses: {}, notes: {} } satisfies AuthSessionData,
  });
  if (++started % 20 === 0)
    db.background(() => purgeExpiredLogins(db, realm).catch((e) => log.warn(`Login purge failed: ${(e as Error).message}`)));
  return row;
}

/** The live authentication session of a tab, when it belongs to the browser's root and the realm. */
export async function findAuthSession(db: Db, realm: RealmModel, rootId: string, tabId: string): Promise<AuthSessionModel | null> {
  const row = await db.models.AuthSession.findByPk(tabId);
  if (!row || row.rootId !== rootId || row.realmId !== realm.id) return null;
  return row.expires >= nowSeconds() ? row : null;
}

/** A mutable copy of the session's state (a JSON column's value may be shared and frozen). */
export const dataOf = (row: AuthSessionModel): AuthSessionData => structuredClone(row.data) as unknown as AuthSessionData;

/**
 * Saves the session's progress with a new session code (the previous page's form is then stale) and a
 * new expiry.
 */
export async function saveAuthSession(db: Db, row: AuthSessionModel, lifespan: number, data: AuthSessionData): Promise<void> {
  row.set({ data: { ...data }, sessionCode: secret(24), expires: nowSeconds() + lifespan });
  row.changed('data', true);
  await row.save();
  void db;
}

export async function removeAuthSession(db: Db, id: string): Promise<void> {
  await db.models.AuthSession.destroy({ where: { id } });
}

/** What the code exchange checks: the request's redirect_uri, PKCE, nonce, scope, and the time of authentication. */
export interface CodeData {
  redirectUri?: string;
  nonce?: string;
  scope?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  /** The authorization request's `dpop_jkt`: the code exchange needs a DPoP proof of that key. */
  dpopJkt?: string;
  authTime: number;
}

/** Issues a one-time code for the user session and client; only its hash is stored. */
export async function issueCode(db: Db, realm: RealmModel, clientId: string, userSessionId: string, data: CodeData): Promise<string> {
  const code = secret(32);
  await db.models.AuthCode.create({
    id: sha256(code),
    realmId: realm.id,
    clientId,
    userSessionId,
    expires: nowSeconds() + codeLifespan(realm),
    used: false,
    data: { ...data },
  });
  return code;
}

export type CodeUse =
  | { kind: 'ok'; row: AuthCodeModel }
  | { kind: 'unknown' }
  | { kind: 'reused'; row: AuthCodeModel }
  | { kind: 'expired' };

/**
 * Takes a code: marks it used in one conditional UPDATE (of two exchanges at once, one wins), and says
 * whether it was unknown, used before or expired.
 */
export async function consumeCode(db: Db, realm: RealmModel, code: string): Promise<CodeUse> {
  if (!code || code.length > 256) return { kind: 'unknown' };
  const row = await db.models.AuthCode.findByPk(sha256(code));
  if (!row || row.realmId !== realm.id) return { kind: 'unknown' };
  if (row.used) return { kind: 'reused', row };
  if (row.expires < nowSeconds()) return { kind: 'expired' };
  const [changed] = await db.models.AuthCode.update({ used: true }, { where: { id: row.id, used: false } });
  return changed === 1 ? { kind: 'ok', row } : { kind: 'reused', row };
}

/** The scope the authorization request of a code asked for, read without using the code (client-policy conditions judge it). */
export async function codeRequestedScope(db: Db, realm: RealmModel, code: string | undefined): Promise<string | undefined> {
  if (!code || code.length > 256) return undefined;
  const row = await db.models.AuthCode.findByPk(sha256(code));
  if (!row || row.realmId !== realm.id) return undefined;
  return (row.data as unknown as CodeData).scope;
}

/** Removes up to `batch` expired authentication sessions and codes of the realm. */
export async function purgeExpiredLogins(db: Db, realm: RealmModel, batch = 200): Promise<void> {
  const now = nowSeconds();
  for (const model of [db.models.AuthSession, db.models.AuthCode] as const) {
    const rows = await (model as typeof db.models.AuthSession).findAll({
      where: { realmId: realm.id, expires: { [Op.lt]: now } },
      attributes: ['id'],
      limit: batch,
    });
    if (rows.length) await (model as typeof db.models.AuthSession).destroy({ where: { id: { [Op.in]: rows.map((r) => r.id) } } });
  }
}
