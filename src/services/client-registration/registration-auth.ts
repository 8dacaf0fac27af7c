import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, type JWTPayload, SignJWT } from 'jose';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import { type Actor, createContext, type RequestContext } from '../../core/context';
import { errorB, type HttpError, serverError } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { ClientModel } from '../../db/models/client';
import type { ClientInitialAccessModel } from '../../db/models/client-initial-access';
import type { RealmModel } from '../../db/models/realm';
import { checkActive, verifiedPayload } from '../tokens/token-check';
import type { TokenEvent } from '../tokens/token-events';
import { verifyBearer } from '../tokens/tokens';
import type { RegistrationAuth } from './registration-policies';

/**
 * Who calls the client registration service (Keycloak's ClientRegistrationAuth and
 * ClientRegistrationTokenUtils): no token (anonymous), a user's access token of the realm, an initial
 * access token (`clients-initial-access`) or a client's registration access token. Every token is a
 * JWT of the realm, signed with one of its keys, with the realm's issuer; refusals are Keycloak's
 * errors, recorded as the operation's `_ERROR` event first.
 */

export const TYPE_INITIAL_ACCESS_TOKEN = 'InitialAccessToken';
export const TYPE_REGISTRATION_ACCESS_TOKEN = 'RegistrationAccessToken';

export type Caller =
  | { kind: 'none' }
  /** A user's access token; `ctx` acts as that user (admin roles, fine-grained permissions, admin events). */
  | { kind: 'bearer'; token: string; claims: JWTPayload; ctx: RequestContext }
  | { kind: 'initial'; token: string; claims: JWTPayload; initialAccess: ClientInitialAccessModel }
  | { kind: 'registration'; token: string; kid?: string; claims: JWTPayload };

/** The request as the registration service sees it. */
export interface RegistrationRequest {
  ctx: RequestContext;
  realm: RealmModel;
  authorization?: string;
  remoteAddress?: string;
  /** `default` or `openid-connect`. */
  provider: string;
  /** Web origins the `registration-web-origins` policies that ran allow (CORS of the answer); filled by the policies. */
  corsOrigins?: string[];
}

/** Keycloak's 401 of the registration service (the `_ERROR` event with `invalid_token` and the reason first). */
export async function unauthorized(ev: TokenEvent, description: string): Promise<HttpError> {
  ev.detail('reason', description);
  await ev.error('invalid_token');
  return errorB(401, 'invalid_token', description);
}

/** Keycloak's 403 of the registration service (`not_allowed` event). */
export async function forbidden(ev: TokenEvent, description = 'Forbidden'): Promise<HttpError> {
  await ev.error('not_allowed');
  return errorB(403, 'insufficient_scope', description);
}

/** Keycloak's 404 for a bearer caller naming a client that does not exist (`client_not_found` event). */
export async function clientNotFound(ev: TokenEvent): Promise<HttpError> {
  await ev.error('client_not_found');
  return errorB(404, 'invalid_request', 'Client not found');
}

/** The caller behind the request's `Authorization` header; anything but `Bearer <token>` is no token. */
export async function readCaller(r: RegistrationRequest, ev: TokenEvent): Promise<Caller> {
  const parts = (r.authorization ?? '').trim().split(' ');
  if (parts[0].toLowerCase() !== 'bearer' || parts.length < 2) return { kind: 'none' };
  const token = parts[1];
  const { ctx, realm } = r;
  const claims = await verifiedPayload(ctx.db, realm, token);
  const bad = () => unauthorized(ev, 'Failed decode token');
  if (!claims || claims.iss !== issuerOf(ctx.baseUrl, realm.name)) throw await bad();
  try {
    checkActive(claims);
  } catch {
    throw await bad();
  }
  if (claims.typ === 'Bearer') {
    const verified = await verifyBearer(ctx.db, token, ctx.baseUrl);
    if (!verified || verified.realm.id !== realm.id) throw await bad();
    const actor: Actor = {
      realmId: realm.id,
      realmName: realm.name,
      userId: verified.userId,
      clientId: verified.clientId,
      sessionId: verified.sessionId,
      ipAddress: r.remoteAddress,
    };
    const userCtx = createContext(ctx.db, actor, ctx.baseUrl, 'idserver.client-registration', ctx.requestId);
    userCtx.versions = verified.versions;
    return { kind: 'bearer', token, claims, ctx: userCtx };
  }
  if (claims.typ === TYPE_INITIAL_ACCESS_TOKEN) {
    const initialAccess = await ctx.db.models.ClientInitialAccess.findOne({ where: { id: String(claims.jti ?? ''), realmId: realm.id } });
    if (!initialAccess) throw await unauthorized(ev, 'Initial Access Token not found');
    return { kind: 'initial', token, claims, initialAccess };
  }
  if (claims.typ === TYPE_REGISTRATION_ACCESS_TOKEN) {
    return { kind: 'registration', token, kid: decodeProtectedHeader(token).kid, claims };
  }
  throw await unauthorized(ev, 'Invalid type of token');
}

/** The registration auth a registration access token was issued under (its `registration_auth` claim). */
export const registrationAuthOf = (claims: JWTPayload): RegistrationAuth =>
  String(claims.registration_auth ?? '').toLowerCase() === 'authenticated' ? 'authenticated' : 'anonymous';

/** True when `caller` holds the client's current registration access token. */
export const holdsRegistrationToken = (caller: Caller, client: ClientModel | null): boolean =>
  caller.kind === 'registration' &&
  client !== null &&
  typeof client.settings?.registrationAccessTokenJti === 'string' &&
  client.settings.registrationAccessTokenJti === caller.claims.jti;

/**
 * On the `openid-connect` endpoint a client of another protocol is Keycloak's 400 `Wrong client
 * protocol.` (the client a bearer token was issued to, or the client a registration token is for).
 */
export function checkClientProtocol(provider: string, protocol: string | null | undefined): void {
  if (provider === 'openid-connect' && protocol && protocol !== 'openid-connect') {
    throw errorB(400, 'invalid_client', 'Wrong client protocol.');
  }
}

/** The protocol of the client a bearer caller's token was issued to. */
export async function bearerClientProtocol(caller: Caller & { kind: 'bearer' }): Promise<string | undefined> {
  const client = await caller.ctx.loaders.clientById.load(caller.ctx.actor?.clientId ?? '');
  return client?.protocol ?? undefined;
}

async function hs512(ctx: RequestContext, realm: RealmModel) {
  const key = activeKey(await realmKeys(ctx.db, realm), 'HS512');
  if (!key?.secret) throw serverError();
  return key;
}

async function sign(ctx: RequestContext, realm: RealmModel, jti: string, auth: RegistrationAuth, issuer?: string): Promise<string> {
  const key = await hs512(ctx, realm);
  const iss = issuer ?? issuerOf(ctx.baseUrl, realm.name);
  return new SignJWT({ jti, typ: TYPE_REGISTRATION_ACCESS_TOKEN, iat: nowSeconds(), exp: 0, iss, aud: iss, registration_auth: auth })
    .setProtectedHeader({ alg: 'HS512', typ: 'JWT', kid: key.kid })
    .sign(key.secret as Uint8Array);
}

/** A new registration access token: its id (to store on the client, invalidating the previous one) and the JWT. */
export async function newRegistrationToken(
  ctx: RequestContext,
  realm: RealmModel,
  auth: RegistrationAuth,
): Promise<{ jti: string; token: string }> {
  const jti = randomUUID();
  return { jti, token: await sign(ctx, realm, jti, auth) };
}

/** The caller's registration token as it is, or signed again with the realm's current key (same id) when that key changed. */
export async function currentlySigned(ctx: RequestContext, realm: RealmModel, caller: Caller & { kind: 'registration' }): Promise<string> {
  const key = await hs512(ctx, realm);
  if (key.kid === caller.kid) return caller.token;
  return sign(ctx, realm, String(caller.claims.jti), registrationAuthOf(caller.claims), String(caller.claims.iss));
}
