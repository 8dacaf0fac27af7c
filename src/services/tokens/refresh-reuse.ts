import type { JWTPayload } from 'jose';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';

/**
 * Refresh token reuse (realm `revokeRefreshToken`, `refreshTokenMaxReuse`), as Keycloak's
 * TokenManager.validateTokenReuseForRefresh / validateTokenReuse. The state is the client session's
 * (`client_session.refresh_state`), per refresh token chain: a login's refresh token carries a new
 * `reuse_id` and each refresh passes it on, so two logins of one client in one session (two tabs) are
 * counted apart; a token without one (issued while the setting was off) counts under ''.
 *
 * A refresh with token T of chain K, when the realm revokes refresh tokens:
 * - another token of K was used last, T is older than the refresh token K issued last: "Stale token";
 * - T is not the token K used last: K now follows T, with no use yet;
 * - T was used more than `refreshTokenMaxReuse` times: "Maximum allowed refresh token reuse exceeded";
 * - else the use counts, and the refresh token issued now is K's newest (its `iat`).
 * A refusal detaches the client session (Keycloak's detachFromUserSession): every refresh token of
 * the client in that session is refused from then on ("Session doesn't have required client").
 *
 * The write is a conditional UPDATE on `refresh_version`: of concurrent refreshes (on any node) that
 * read the same state only one writes; the others read again and decide on what it wrote.
 */
interface ChainState {
  /** The id (`jti`) of the refresh token used last. */
  t: string;
  /** How often it was used. */
  n: number;
  /** `iat` of the refresh token the chain issued last. */
  l: number;
}

export const REUSE_ID_CLAIM = 'reuse_id';
export const REUSE_EXCEEDED = 'Maximum allowed refresh token reuse exceeded';
export const NO_CLIENT_SESSION = "Session doesn't have required client";
const ATTEMPTS = 20;

/** Whether the realm revokes (counts the uses of) refresh tokens. */
export const revokesRefreshTokens = (realm: RealmModel): boolean =>
  realm.settings.revokeRefreshToken === true || realm.settings.revokeRefreshToken === 'true';

function parse(text: string | null): Record<string, ChainState> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, ChainState>) : {};
  } catch {
    return {};
  }
}

const identify = (realm: RealmModel, claims: JWTPayload) => ({
  key: typeof claims[REUSE_ID_CLAIM] === 'string' ? (claims[REUSE_ID_CLAIM] as string) : '',
  jti: String(claims.jti ?? ''),
  max: Number(realm.settings.refreshTokenMaxReuse ?? 0) || 0,
});

/**
 * Whether introspection may call the refresh token `claims` active while the realm revokes refresh
 * tokens (Keycloak's validateTokenReuseForIntrospection: the same rule, nothing counted or written).
 */
export async function refreshTokenIntrospectable(
  db: Db,
  realm: RealmModel,
  userSessionId: string,
  clientId: string,
  claims: JWTPayload,
): Promise<boolean> {
  const row = await db.models.ClientSession.findOne({ where: { userSessionId, clientId }, attributes: ['refreshState'] });
  if (!row) return false;
  const { key, jti, max } = identify(realm, claims);
  const chain = parse(row.refreshState)[key];
  if (!chain) return true;
  if (chain.t !== jti) return Number(claims.iat ?? 0) >= chain.l;
  return chain.n <= max;
}

/**
 * Counts one use of the refresh token `claims` in the client session (userSessionId, clientId), whose
 * refresh issues a refresh token at `iat` (also the client session's new timestamp). Returns the
 * error description of a refusal (the client session is then detached), undefined when it counted.
 */
export async function countRefreshUse(
  db: Db,
  realm: RealmModel,
  userSessionId: string,
  clientId: string,
  claims: JWTPayload,
  iat: number,
): Promise<string | undefined> {
  const CS = db.models.ClientSession;
  const where = { userSessionId, clientId };
  const { key, jti, max } = identify(realm, claims);
  const refuse = async (description: string) => {
    await CS.destroy({ where });
    return description;
  };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const row = await CS.findOne({ where, attributes: ['refreshState', 'refreshVersion'] });
    if (!row) return NO_CLIENT_SESSION;
    const state = parse(row.refreshState);
    const chain = state[key];
    if (chain && chain.t !== jti && Number(claims.iat ?? 0) < chain.l) return refuse('Stale token');
    const uses = chain?.t === jti ? chain.n : 0;
    if (uses > max) return refuse(REUSE_EXCEEDED);
    state[key] = { t: jti, n: uses + 1, l: iat };
    const version = row.refreshVersion;
    const [changed] = await CS.update(
      { refreshState: JSON.stringify(state), refreshVersion: version + 1, timestamp: iat },
      { where: { ...where, refreshVersion: version } },
    );
    if (changed === 1) return undefined;
  }
  // Others kept writing the chain: as a reuse beyond the limit, without detaching what they did.
  return REUSE_EXCEEDED;
}
