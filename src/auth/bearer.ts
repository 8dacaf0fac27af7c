import type { Request } from 'express';
import { type Actor, createContext, type RequestContext } from '../core/context';
import { unauthorized } from '../core/errors';
import { requestIdOf } from '../core/server-errors';
import type { Db } from '../db';
import type { RealmModel } from '../db/models/realm';
import { cachedRealm, remember } from './realm-keys';
import { authorizationHeader } from '../services/tokens/dpop';
import { verifyBearer } from '../services/tokens/tokens';
import { actorRoleIds, isStorageId, rememberTransientActor } from '../services/user-storage/transient-users';

/**
 * Admin request authentication shared by both fronts (reference §2.4): reads
 * `Authorization: Bearer <token>` (scheme case-insensitive) or `DPoP <token>` with its proof, verifies it against its issuer realm and
 * returns the caller; its issuer must be the server's URL of that realm. Anything missing or invalid is the 401 `{"error":"HTTP 401 Unauthorized"}`.
 */
export function bearerToken(req: Request): string | undefined {
  return authorizationHeader(req.headers.authorization)?.token;
}

/** The verified token behind the request; throws 401 when there is none or it does not verify. */
async function verifiedRequest(db: Db, req: Request, baseUrl?: string, targetRealm?: string) {
  const header = authorizationHeader(req.headers.authorization);
  if (!header) throw unauthorized();
  const proof = typeof req.headers.dpop === 'string' ? req.headers.dpop : undefined;
  // A DPoP proof names the request's absolute URL: the server's public base and the path.
  const sender = { scheme: header.scheme, proof, method: req.method, url: `${baseUrl ?? ''}${req.originalUrl}` };
  const verified = await verifyBearer(db, header.token, baseUrl, targetRealm, sender);
  if (!verified) throw unauthorized();
  return verified;
}

/** The actor behind the request's bearer token; throws 401 when there is none or it does not verify. */
export async function actorFromRequest(db: Db, req: Request): Promise<Actor> {
  return toActor(await verifiedRequest(db, req), req);
}

/**
 * The RequestContext of an authenticated admin request, its loaders primed with the caller's realm
 * (read while verifying the token) and with the target realm `targetRealm` (the `{realm}` of an admin
 * path) from this node's cache when the bearer statement found it unchanged (ADR 23). The cache
 * versions read on the way are the request's (`ctx.versions`).
 */
export async function contextFromRequest(
  db: Db,
  req: Request,
  baseUrl: string,
  category?: string,
  targetRealm?: string,
): Promise<RequestContext> {
  const verified = await verifiedRequest(db, req, baseUrl, targetRealm);
  const ctx = createContext(db, toActor(verified, req), baseUrl, category, requestIdOf(req));
  ctx.versions = verified.versions;
  const prime = (realm: RealmModel) => {
    ctx.loaders.realmByName.prime(realm.name, realm);
    ctx.loaders.realmById.prime(realm.id, realm);
  };
  prime(verified.realm);
  if (verified.transientUser) rememberTransientActor(ctx, verified.transientUser);
  const target = verified.target;
  if (target && target.id !== verified.realm.id && target.version >= 0) {
    // The same name and version may belong to a realm deleted and made again: the id must match too.
    const known = cachedRealm(db, target.name, target.version);
    if (known && known.id === target.id) prime(known);
    else {
      // Read now (it is needed next), and kept under the version read before it.
      const realm = await ctx.loaders.realmByName.load(target.name);
      if (realm) remember(db, realm, target.version);
    }
  }
  return ctx;
}

/**
 * The caller behind a bearer token given without an HTTP request (the WebSocket front reads it from
 * `connection_init`), verified as `contextFromRequest` does; null when it does not verify.
 */
export async function actorFromToken(db: Db, token: string, ipAddress?: string, baseUrl?: string): Promise<Actor | null> {
  const verified = await verifyBearer(db, token, baseUrl);
  return verified ? toActor(verified, { ip: ipAddress }) : null;
}

function toActor(verified: NonNullable<Awaited<ReturnType<typeof verifyBearer>>>, req: { ip?: string }): Actor {
  return {
    realmId: verified.realm.id,
    realmName: verified.realm.name,
    userId: verified.userId,
    clientId: verified.clientId,
    sessionId: verified.sessionId,
    ipAddress: req.ip,
    allowedOrigins: verified.allowedOrigins,
    // A transient federated user (ADR 46): its roles come from its directory entry, not from mapping rows.
    ...(isStorageId(verified.userId) ? { roleIds: actorRoleIds } : {}),
  };
}
