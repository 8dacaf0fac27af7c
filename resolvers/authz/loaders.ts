import DataLoader from 'dataloader';
import { Op } from 'sequelize';
import type { RequestContext } from '../../src/core/context';
import { isEmptyPage, type PageQuery, pageOf, slicePage } from '../../src/core/paging';
import type { ResourceServerModel } from '../../src/db/models/authorization';
import { type Json, toResourceRepresentation } from '../../src/representations/authz';
import { type AuthzTarget, requireViewAuthz } from '../../src/services/authz/access';
import { scopesOfResources } from '../../src/services/authz/resources';
import { AUTHZ_DEFAULT_MAX } from '../../src/services/authz/scopes';

/**
 * Per-request batching for `Client.authorization` over a list of clients: the resource servers of
 * many clients in one statement, and their unfiltered resource listings (`GET .../resource` with no
 * filter) in one statement plus the scopes (2) and the owning users (1), whatever the number of
 * clients. Kept with the request context (a WeakMap, so it dies with the request) and dropped by
 * every authorization mutation, so a later field of the same request reads what was written.
 */
interface AuthzLoaders {
  resourceServer: DataLoader<string, ResourceServerModel | null>;
  resources: DataLoader<AuthzTarget, Json[], string>;
}

const perRequest = new WeakMap<RequestContext, AuthzLoaders>();

function create(ctx: RequestContext): AuthzLoaders {
  const m = ctx.db.models;
  return {
    resourceServer: new DataLoader(async (ids) => {
      const rows = await m.ResourceServer.findAll({ where: { id: { [Op.in]: [...ids] } } });
      return ids.map((id) => rows.find((r) => r.id === id) ?? null);
    }),
    resources: new DataLoader((targets) => resourcesOf(ctx, targets), { cacheKeyFn: (t) => t.rs.id }),
  };
}

/** The loaders of this request (made on first use). */
export function authzLoaders(ctx: RequestContext): AuthzLoaders {
  let l = perRequest.get(ctx);
  if (!l) {
    l = create(ctx);
    perRequest.set(ctx, l);
  }
  return l;
}

/** Forgets what this request has read of authorization settings (after a write). */
export function forgetAuthz(ctx: RequestContext): void {
  perRequest.delete(ctx);
}

/**
 * The listing of `listResources` with no filter (every resource, deep, ordered by name) for many
 * resource servers: the same rows and representations, from the same representation function.
 */
async function resourcesOf(ctx: RequestContext, targets: readonly AuthzTarget[]): Promise<Array<Json[] | Error>> {
  const m = ctx.db.models;
  const allowed = await Promise.all(
    targets.map((t) =>
      requireViewAuthz(ctx, t.realm).then(
        () => null,
        (err: Error) => err,
      ),
    ),
  );
  const ids = targets.filter((_, i) => !allowed[i]).map((t) => t.rs.id);
  const rows = ids.length ? await m.AuthzResource.findAll({ where: { resourceServerId: { [Op.in]: ids } }, order: [['name', 'ASC']] }) : [];
  const [scopes, users] = await Promise.all([
    scopesOfResources(
      ctx,
      rows.map((r) => r.id),
    ),
    ownerUsers(
      ctx,
      rows.map((r) => r.owner).filter((o) => !ids.includes(o)),
    ),
  ]);
  return targets.map((t, i) => {
    const denied = allowed[i];
    if (denied) return denied;
    return rows
      .filter((r) => r.resourceServerId === t.rs.id)
      .map((r) => toResourceRepresentation(r, r.owner === t.rs.id ? t.client.clientId : users.get(r.owner), scopes.get(r.id)));
  });
}

/** Usernames of the users owning resources, in one statement. */
async function ownerUsers(ctx: RequestContext, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const users = await ctx.db.models.User.findAll({ where: { id: { [Op.in]: unique } }, attributes: ['id', 'username'] });
  return new Map(users.map((u) => [u.id, u.username]));
}

/** One page of a batched listing, with `listResources`'s paging rule (default 100). */
export async function resourcePage(ctx: RequestContext, t: AuthzTarget, q: PageQuery): Promise<Json[]> {
  const page = pageOf(q, { defaultMax: AUTHZ_DEFAULT_MAX });
  const all = await authzLoaders(ctx).resources.load(t);
  return isEmptyPage(page) ? [] : slicePage(all, page);
}
