import type { UserSessionModel } from '../db/models/component';
import type { ClientSessionModel, LoginFailureModel } from '../db/models/session';

/** Keycloak's UserSessionRepresentation (times in epoch milliseconds). */
export type UserSessionRepresentation = {
  id: string;
  username: string | null;
  userId: string;
  ipAddress: string | null;
  start: number;
  lastAccess: number;
  rememberMe: boolean;
  /** Client UUID → clientId of the clients taking part in the session. */
  clients: Record<string, string>;
  transientUser: boolean;
};

export interface SessionRepOptions {
  /** Only this client in `clients`, and `lastAccess` from its client session (offline listings). */
  onlyClient?: string;
  /** `lastAccess` from this client's client session, `clients` complete. */
  lastAccessOf?: string;
}

/** What a session's representation needs besides the row: its user's name and its client sessions. */
export interface SessionParts {
  username: string | null;
  /** The session's client sessions whose client still exists. */
  links: ClientSessionModel[];
  /** Client UUID → clientId. */
  clientNames: ReadonlyMap<string, string>;
}

/** Keycloak's UserSessionRepresentation of a session row. */
export function toUserSessionRepresentation(s: UserSessionModel, p: SessionParts, opts: SessionRepOptions = {}): UserSessionRepresentation {
  const shown = opts.onlyClient ? p.links.filter((l) => l.clientId === opts.onlyClient) : p.links;
  const timed = opts.onlyClient ?? opts.lastAccessOf;
  const last = timed ? (p.links.find((l) => l.clientId === timed)?.timestamp ?? s.lastAccess) : s.lastAccess;
  return {
    id: s.id,
    username: p.username,
    userId: s.userId,
    ipAddress: s.ipAddress,
    start: s.started * 1000,
    lastAccess: last * 1000,
    rememberMe: Boolean(s.rememberMe),
    clients: Object.fromEntries(shown.map((l) => [l.clientId, p.clientNames.get(l.clientId) as string])),
    transientUser: false,
  };
}

/** One entry of GET /client-session-stats: the counts are strings, as Keycloak sends them. */
export type ClientSessionStatRepresentation = { id: string; clientId: string; active: string; offline: string };

export const toClientSessionStat = (s: {
  id: string;
  clientId: string;
  active: number;
  offline: number;
}): ClientSessionStatRepresentation => ({
  id: s.id,
  clientId: s.clientId,
  active: String(s.active),
  offline: String(s.offline),
});

/** Java's Long.MAX_VALUE: `failedLoginNotBefore` of a permanently locked user. */
export const LONG_MAX = 9223372036854775807n;

/** The brute-force status map of a user (GET /attack-detection/brute-force/users/{id}). */
export type BruteForceStatus = {
  numFailures: number;
  disabled: boolean;
  lastIPFailure: string;
  lastFailure: number;
  /** Epoch seconds; LONG_MAX (a bigint, written as an exact integer) when permanently locked. */
  failedLoginNotBefore: number | bigint;
  numTemporaryLockouts: number;
  numSecondaryAuthFailures: number;
};

/**
 * The status of a user from its failure record (null: none): `disabled` while the temporary
 * lockout runs (`now` in epoch seconds) or when the user is permanently locked.
 */
export function toBruteForceStatus(row: LoginFailureModel | null, nowSeconds: number, permanent: boolean): BruteForceStatus {
  const out: BruteForceStatus = {
    numFailures: 0,
    disabled: false,
    lastIPFailure: 'n/a',
    lastFailure: 0,
    failedLoginNotBefore: 0,
    numTemporaryLockouts: 0,
    numSecondaryAuthFailures: 0,
  };
  if (row) {
    Object.assign(out, {
      numFailures: row.numFailures,
      numTemporaryLockouts: row.numTemporaryLockouts,
      lastFailure: Number(row.lastFailure),
      lastIPFailure: row.lastIpFailure ?? 'n/a',
    });
    if (nowSeconds < Number(row.failedLoginNotBefore)) {
      out.disabled = true;
      out.failedLoginNotBefore = Number(row.failedLoginNotBefore);
    }
  }
  if (permanent) {
    out.disabled = true;
    out.failedLoginNotBefore = LONG_MAX;
  }
  return out;
}
