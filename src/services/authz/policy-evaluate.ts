import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../../core/context';
import { cannotParse, errorB } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { ClientModel } from '../../db/models/client';
import type { UserModel } from '../../db/models/user';
import type { Json } from '../../representations/authz';
import { audClaim, computeClaims, effectiveClientScopes, scopeString } from '../tokens/token-claims';
import { type AuthzTarget, authzNotFound, listField, objectBody, requireViewAuthz, textField } from './access';
import { contextAttributes, loadAuthzIdentity, loadAuthzModel } from './authz-model';
import { AuthzRequestError, evaluateAuthorization, type PermissionRequest } from './evaluation';
import { toEvaluationResponse } from './evaluation-response';

/**
 * `POST .../authz/resource-server/policy/evaluate`: the admin console's evaluate tool (Keycloak's
 * PolicyEvaluationService). The identity is the access token the chosen client (`clientId`, a client
 * UUID; by default the resource server's own client) would get for the user (`userId`: an id or a
 * username); `roleIds` are added to its realm roles. Without a known user the token has no roles but
 * those, and the subject is the client's service account, as in Keycloak. `resources` name what to
 * evaluate (`_id`, or `type`, or only `scopes`; none = everything), `context.attributes` are pushed
 * claims (a comma splits values). The answer is Keycloak's PolicyEvaluationResponse with the `rpt`:
 * the identity's token with `authorization.permissions` and the resource server in its audience.
 */

/** The evaluate tool's `resources`: `_id`, `type` and `scopes` of each ResourceRepresentation (Keycloak ignores `name`). */
function permissionsOf(body: Record<string, unknown>): PermissionRequest[] {
  const list = body.resources;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw cannotParse('mapping');
  const out: PermissionRequest[] = [];
  for (const item of list) {
    if (item === null) continue;
    if (typeof item !== 'object' || Array.isArray(item)) throw cannotParse('mapping');
    const r = item as Record<string, unknown>;
    const rawScopes = r.scopes ?? [];
    if (!Array.isArray(rawScopes)) throw cannotParse('mapping');
    const scopes = rawScopes
      .map((s) => (s && typeof s === 'object' ? textField(s as Record<string, unknown>, 'name') : s == null ? undefined : String(s)))
      .filter((s): s is string => s !== undefined);
    const id = textField(r, '_id');
    const type = textField(r, 'type');
    if (id !== undefined) out.push({ resource: id, scopes });
    else if (type !== undefined) out.push({ resourceType: type, scopes });
    else if (scopes.length > 0) out.push({ scopes });
  }
  return out;
}

/** `context.attributes`: string values (lists of strings accepted). */
function attributesOf(body: Record<string, unknown>): Record<string, string | string[]> {
  const context = body.context;
  if (context === undefined || context === null) return {};
  if (typeof context !== 'object' || Array.isArray(context)) throw cannotParse('mapping');
  const attributes = (context as Record<string, unknown>).attributes;
  if (attributes === undefined || attributes === null) return {};
  if (typeof attributes !== 'object' || Array.isArray(attributes)) throw cannotParse('mapping');
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(attributes as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v)) out[k] = v.map(String);
    else if (typeof v === 'object') throw cannotParse('mapping');
    else out[k] = String(v);
  }
  return out;
}

/** The user named by `userId`: by id, else by username. */
async function findUser(ctx: RequestContext, realmId: string, ref: string): Promise<UserModel | null> {
  const m = ctx.db.models;
  const byId = await m.User.findOne({ where: { realmId, id: ref } });
  return byId ?? m.User.findOne({ where: { realmId, username: ref.toLowerCase() } });
}

/** The access token claims the client would get for the user (TokenManager#createClientAccessToken). */
async function userToken(ctx: RequestContext, t: AuthzTarget, client: ClientModel, user: UserModel): Promise<Record<string, unknown>> {
  const { realm } = t;
  const sessionId = randomUUID();
  const [claims, scopes] = await Promise.all([
    computeClaims(ctx.db, { realm, client, user, scope: '', sessionId, notes: {} }),
    effectiveClientScopes(ctx.db, client, ''),
  ]);
  const iat = Math.floor(Date.now() / 1000);
  const lifespan = Number(realm.settings.accessTokenLifespan ?? 300);
  return {
    exp: iat + lifespan,
    iat,
    jti: randomUUID(),
    iss: issuerOf(ctx.baseUrl, realm.name),
    ...audClaim(claims.accessAud),
    sub: user.id,
    typ: 'Bearer',
    azp: client.clientId,
    sid: sessionId,
    ...claims.access,
    scope: scopeString(scopes, ''),
  };
}

/** The audience list of a token with one more entry (Keycloak adds the resource server's clientId to the RPT). */
function withAudience(token: Record<string, unknown>, clientId: string): Record<string, unknown> {
  const aud = token.aud === undefined ? [] : Array.isArray(token.aud) ? token.aud.map(String) : [String(token.aud)];
  if (!aud.includes(clientId)) aud.push(clientId);
  return { ...token, aud: aud.length === 1 ? aud[0] : aud };
}

/** POST .../resource-server/policy/evaluate (view-authorization or manage-authorization). */
export async function evaluatePolicies(ctx: RequestContext, t: AuthzTarget, raw: unknown): Promise<Json> {
  await requireViewAuthz(ctx, t.realm);
  const body = objectBody(raw);
  const userRef = textField(body, 'userId');
  const clientRef = textField(body, 'clientId');
  const roleNames = listField(body, 'roleIds') ?? [];
  const permissions = permissionsOf(body);
  const attributes = attributesOf(body);
  const m = ctx.db.models;
  const [user, chosen, ix] = await Promise.all([
    userRef ? findUser(ctx, t.realm.id, userRef) : null,
    clientRef ? m.Client.findOne({ where: { realmId: t.realm.id, id: clientRef } }) : null,
    loadAuthzModel(ctx.db, t.rs.id),
  ]);
  if (!ix) throw authzNotFound();
  const client = chosen ?? t.client;
  let token: Record<string, unknown>;
  let subject: string | null;
  let isUser: boolean;
  if (user) {
    token = await userToken(ctx, t, client, user);
    subject = user.id;
    isUser = true;
  } else {
    // No user: an empty token for the client; the subject is the client's service account (Keycloak's CloseableKeycloakIdentity).
    token = { ...(userRef ? { sub: userRef } : {}), azp: client.clientId, aud: client.id, iss: issuerOf(ctx.baseUrl, t.realm.name) };
    token.realm_access = { roles: [] };
    const account = await m.User.findOne({ where: { realmId: t.realm.id, serviceAccountClientLink: client.id }, attributes: ['id'] });
    subject = account?.id ?? null;
    isUser = account != null;
  }
  if (roleNames.length) {
    const access = (token.realm_access ?? {}) as { roles?: unknown };
    const roles = Array.isArray(access.roles) ? access.roles.map(String) : [];
    token.realm_access = { ...access, roles: [...roles, ...roleNames.filter((r) => !roles.includes(r))] };
  }
  const { identity, realm } = await loadAuthzIdentity(ctx.db, ix, {
    realm: t.realm,
    userId: subject,
    isUser,
    client: { id: client.id, clientId: client.clientId },
    claims: token,
    extraRoles: roleNames,
  });
  let outcome: ReturnType<typeof evaluateAuthorization>;
  try {
    outcome = evaluateAuthorization(ix, {
      identity,
      realm,
      permissions,
      attributes: { ...contextAttributes(t.realm), ...attributes },
    });
  } catch (e) {
    if (e instanceof AuthzRequestError) throw errorB(400, e.error, e.description);
    throw e;
  }
  const rpt = withAudience({ ...token, authorization: { permissions: outcome.permissions } }, t.client.clientId);
  return { ...toEvaluationResponse(outcome), rpt } as unknown as Json;
}
