import type { Request } from 'express';
import { type Actor, createContext, type RequestContext } from '../core/context';
import { unauthorized } from '../core/errors';
import { requestIdOf } from '../core/server-errors';
import type { Db } from '../db';
import { verifyBearer } from '../services/tokens/tokens';

/**
 * Admin request authentication shared by both fronts (reference §2.4): reads
 * `Authorization: Bearer <token>` (scheme case-insensitive), verifies it against its issuer realm and
 * returns the caller; its issuer must be the server's URL of that realm. Anything missing or invalid is the 401 `{"error":"HTTP 401 Unauthorized"}`.
 */
export function bearerToken(req: Request): string | undefined {
  const m = /^bearer\s+(.+)$/i.exec((req.headers.authorization ?? '').trim());
  return m ? m[1] : undefined;
}

/** The verified token behind the request; throws 401 when there is none or it does not verify. */
async function verifiedRequest(db: Db, req: Request, baseUrl?: string) {
  const token = bearerToken(req);
  if (!token) throw unauthorized();
  const verified = await verifyBearer(db, token, baseUrl);
  if (!verified) throw unauthorized();
  return verified;
}

/** The actor behind the request's bearer token; throws 401 when there is none or it does not verify. */
export async function actorFromRequest(db: Db, req: Request): Promise<Actor> {
  return toActor(await verifiedRequest(db, req), req);
}

/**
 * The RequestContext of an authenticated admin request, its loaders primed with the caller's realm
 * (read while verifying the token), so the request does not read it again.
 */
export async function contextFromRequest(db: Db, req: Request, baseUrl: string, category?: string): Promise<RequestContext> {
  const verified = await verifiedRequest(db, req, baseUrl);
  const ctx = createContext(db, toActor(verified, req), baseUrl, category, requestIdOf(req));
  ctx.loaders.realmByName.prime(verified.realm.name, verified.realm);
  ctx.loaders.realmById.prime(verified.realm.id, verified.realm);
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
  };
}
