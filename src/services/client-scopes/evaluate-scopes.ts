import { randomUUID } from 'node:crypto';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import { notFound } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import { requireClientAccess } from '../clients/clients';
import { type ProtocolMapperEvaluationRepresentation, toProtocolMapperEvaluation } from '../../representations/protocol-mapper';
import type { RoleRep } from '../../representations/role';
import type { TokenPayload } from '../../representations/token';
import type { RequestContext } from '../../core/context';
import { canAccessRoles, clientOwner, realmOwner, roleReps } from '../roles/role-access';
import { audClaim, computeClaims, effectiveClientScopes, effectiveMappers, scopeRoleIds, scopeString } from '../tokens/token-claims';

/**
 * Evaluate scopes (config reference §5.2): what a client would put into tokens for a scope
 * parameter — the protocol mappers that apply, the roles granted or not, and example access/ID
 * tokens and userinfo computed by the same mapper engine as the token endpoint (nothing is stored).
 * All require view rights on the client.
 */

/** GET /clients/{id}/evaluate-scopes/protocol-mappers?scope=: mappers of the client and its effective scopes. */
export async function evaluateProtocolMappers(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  scope = '',
): Promise<ProtocolMapperEvaluationRepresentation[]> {
  await requireClientAccess(ctx, realm, client, 'view');
  const scopes = await effectiveClientScopes(ctx.db, client, scope);
  const byId = new Map(scopes.map((s) => [s.id, s]));
  const mappers = await effectiveMappers(ctx.db, client, scopes);
  const rank = new Map<string, number>(scopes.map((s, i) => [s.id, i]));
  const pos = (id: string | null) => (id ? (rank.get(id) ?? 0) : scopes.length);
  return [...mappers]
    .sort((a, b) => pos(a.clientScopeId) - pos(b.clientScopeId) || a.name.localeCompare(b.name))
    .map((pm) => toProtocolMapperEvaluation(pm, client, pm.clientScopeId ? byId.get(pm.clientScopeId) : undefined));
}

/**
 * GET /clients/{id}/evaluate-scopes/scope-mappings/{roleContainerId}/granted|not-granted?scope=:
 * roles of the container (realm name or client UUID) the client may (not) put into tokens.
 */
export async function evaluateScopeMappings(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  roleContainerId: string,
  scope = '',
  granted = true,
): Promise<RoleRep[]> {
  await requireClientAccess(ctx, realm, client, 'view');
  let containerId: string;
  let owner: ReturnType<typeof realmOwner>;
  if (roleContainerId === realm.name) {
    containerId = realm.id;
    owner = realmOwner(realm);
  } else {
    const container = await ctx.loaders.clientById.load(roleContainerId);
    if (!container || container.realmId !== realm.id) throw notFound('Role Container not found');
    containerId = container.id;
    owner = clientOwner(realm, container);
  }
  const all = await ctx.loaders.rolesByContainer.load(containerId);
  const allowed = await scopeRoleIds(ctx.db, client, await effectiveClientScopes(ctx.db, client, scope));
  const inScope = (r: RoleModel) => !allowed || allowed.has(r.id);
  let roles = all.filter((r) => inScope(r) === granted);
  if (granted && !(await canAccessRoles(ctx, owner, 'view'))) roles = [];
  return roleReps(ctx, roles);
}

export type ExampleKind = 'access' | 'id' | 'userinfo';

/**
 * GET /clients/{id}/evaluate-scopes/generate-example-{access-token|id-token|userinfo}?scope=&userId=[&audience=]:
 * the unsigned payload the client would get for that user.
 */
export async function generateExample(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  kind: ExampleKind,
  q: { scope?: string; userId?: string; audience?: string },
): Promise<TokenPayload> {
  await requireClientAccess(ctx, realm, client, 'view');
  if (!q.userId) throw notFound('No userId provided');
  const user = await ctx.loaders.userById.load(q.userId);
  if (!user || user.realmId !== realm.id) throw notFound('No user found');
  const scope = q.scope ?? '';
  const sessionId = randomUUID();
  const claims = await computeClaims(ctx.db, { realm, client, user, scope, sessionId, notes: {} });
  if (kind === 'userinfo') return { sub: user.id, ...claims.userinfo };
  const iat = Math.floor(Date.now() / 1000);
  const lifespan = Number(realm.settings.accessTokenLifespan ?? 300);
  const common = { exp: iat + lifespan, iat, jti: randomUUID(), iss: issuerOf(ctx.baseUrl, realm.name) };
  let token: TokenPayload;
  let aud: string[];
  if (kind === 'id') {
    aud = [client.clientId, ...claims.idAud.filter((a) => a !== client.clientId)];
    token = { ...common, ...audClaim(aud), sub: user.id, typ: 'ID', azp: client.clientId, sid: sessionId, ...claims.id };
  } else {
    aud = claims.accessAud;
    const scopeClaim = scopeString(await effectiveClientScopes(ctx.db, client, scope), scope);
    token = { ...common, ...audClaim(aud), typ: 'Bearer', azp: client.clientId, sid: sessionId, ...claims.access, scope: scopeClaim };
  }
  const wanted = (q.audience ?? '').split(/\s+/).filter(Boolean);
  const missing = wanted.filter((a) => !aud.includes(a));
  if (wanted.length && missing.length === wanted.length) throw notFound(`Requested audience not available: ${missing.join(' ')}`);
  return token;
}
