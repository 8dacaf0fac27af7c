import { randomUUID } from 'node:crypto';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import type { UserModel } from '../../db/models/user';
import { notFound } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import { requireClientAccess } from '../clients/clients';
import { type ProtocolMapperEvaluationRepresentation, toProtocolMapperEvaluation } from '../../representations/protocol-mapper';
import type { RoleRep } from '../../representations/role';
import type { TokenPayload } from '../../representations/token';
import type { RequestContext } from '../../core/context';
import { canAccessRoles, clientOwner, realmOwner, roleReps } from '../roles/role-access';
import {
  audClaim,
  computeClaimsOf,
  effectiveClientScopesOf,
  effectiveMappersOf,
  scopeRoleIdsOf,
  scopeString,
} from '../tokens/token-claims';
import { batchLoad } from '../../loaders/batch';

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
  const name = `evaluate-protocol-mappers:${realm.id}:${scope}`;
  return batchLoad(ctx.memo, name, (clients: readonly ClientModel[]) => protocolMapperEvaluationsOf(ctx, clients, scope), client);
}

/** The evaluated protocol mappers of many clients for one scope parameter (in client order): three statements for all. */
export async function protocolMapperEvaluationsOf(
  ctx: RequestContext,
  clients: readonly ClientModel[],
  scope: string,
): Promise<ProtocolMapperEvaluationRepresentation[][]> {
  const scopesOf = await effectiveClientScopesOf(ctx.db, clients, scope);
  const mappersOf = await effectiveMappersOf(
    ctx.db,
    clients.map((client, i) => ({ client, scopes: scopesOf[i] })),
  );
  return clients.map((client, i) => {
    const scopes = scopesOf[i];
    const byId = new Map(scopes.map((s) => [s.id, s]));
    const rank = new Map<string, number>(scopes.map((s, j) => [s.id, j]));
    const pos = (id: string | null) => (id ? (rank.get(id) ?? 0) : scopes.length);
    return [...mappersOf[i]]
      .sort((a, b) => pos(a.clientScopeId) - pos(b.clientScopeId) || a.name.localeCompare(b.name))
      .map((pm) => toProtocolMapperEvaluation(pm, client, pm.clientScopeId ? byId.get(pm.clientScopeId) : undefined));
  });
}

/** Role ids each client may put into tokens for a scope parameter (null: full scope): the clients of one request tick together. */
function allowedRoleIds(ctx: RequestContext, client: ClientModel, scope: string): Promise<Set<string> | null> {
  const batch = async (clients: readonly ClientModel[]) => {
    const scopesOf = await effectiveClientScopesOf(ctx.db, clients, scope);
    return scopeRoleIdsOf(
      ctx.db,
      clients.map((c, i) => ({ client: c, scopes: scopesOf[i] })),
    );
  };
  return batchLoad(ctx.memo, `evaluate-allowed-roles:${scope}`, batch, client);
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
  const allowed = await allowedRoleIds(ctx, client, scope);
  const inScope = (r: RoleModel) => !allowed || allowed.has(r.id);
  let roles = all.filter((r) => inScope(r) === granted);
  if (granted && !(await canAccessRoles(ctx, owner, 'view'))) roles = [];
  return roleReps(ctx, roles);
}

export type ExampleKind = 'access' | 'id' | 'userinfo';

/**
 * GET /clients/{id}/evaluate-scopes/generate-example-{access-token|id-token|userinfo}?scope=&userId=[&audience=]:
 * the unsigned payload the client would get for that user. The clients of one request tick are
 * computed together (GraphQL `evaluateScopes { exampleAccessToken }` of a list of clients).
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
  const name = `example:${realm.id}:${kind}:${user.id}:${JSON.stringify([scope, q.audience ?? ''])}`;
  const batch = (clients: readonly ClientModel[]) => examplesOf(ctx, realm, user, clients, kind, scope, q.audience);
  return batchLoad(ctx.memo, name, batch, client);
}

/** The example payloads of many clients for one user, kind and scope (in client order; an Error for a missing audience). */
async function examplesOf(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  clients: readonly ClientModel[],
  kind: ExampleKind,
  scope: string,
  audience: string | undefined,
): Promise<Array<TokenPayload | Error>> {
  const sessionIds = clients.map(() => randomUUID());
  const claimsOf = await computeClaimsOf(
    ctx.db,
    clients.map((client, i) => ({ realm, client, user, scope, sessionId: sessionIds[i], notes: {} })),
  );
  if (kind === 'userinfo') return claimsOf.map((claims) => ({ sub: user.id, ...claims.userinfo }));
  const scopesOf = kind === 'access' ? await effectiveClientScopesOf(ctx.db, clients, scope) : [];
  const iat = Math.floor(Date.now() / 1000);
  const lifespan = Number(realm.settings.accessTokenLifespan ?? 300);
  const wanted = (audience ?? '').split(/\s+/).filter(Boolean);
  return clients.map((client, i) => {
    const claims = claimsOf[i];
    const sessionId = sessionIds[i];
    const common = { exp: iat + lifespan, iat, jti: randomUUID(), iss: issuerOf(ctx.baseUrl, realm.name) };
    let token: TokenPayload;
    let aud: string[];
    if (kind === 'id') {
      aud = [client.clientId, ...claims.idAud.filter((a) => a !== client.clientId)];
      token = { ...common, ...audClaim(aud), sub: user.id, typ: 'ID', azp: client.clientId, sid: sessionId, ...claims.id };
    } else {
      aud = claims.accessAud;
      const scopeClaim = scopeString(scopesOf[i], scope);
      token = { ...common, ...audClaim(aud), typ: 'Bearer', azp: client.clientId, sid: sessionId, ...claims.access, scope: scopeClaim };
    }
    const missing = wanted.filter((a) => !aud.includes(a));
    if (wanted.length && missing.length === wanted.length) return notFound(`Requested audience not available: ${missing.join(' ')}`);
    return token;
  });
}
