import { type Request, Router } from 'express';
import type { ScopeOwnerType } from '../../src/services/client-scopes/scope-owner';
import {
  addScopeMappingsTo,
  getScopeMappings,
  listAvailableScopeRoles,
  listEffectiveScopeRoles,
  listScopeMappedRoles,
  removeScopeMappings,
  type ScopeRoleRep,
} from '../../src/services/client-scopes/scope-mappings';
import { arrayBody, ctxOf, json, noContent, qBool, realmOf, route } from '../http';
import { scopeOwnerOf } from './scope-owner';

/**
 * `/{clients|client-scopes}/:ownerId/scope-mappings/...` — one router factory, mounted once per
 * owner type; the realm and client variants differ only by the client UUID. A body is read before
 * the owner is resolved.
 */
export function scopeMappingsRouter(type: ScopeOwnerType): Router {
  const r = Router({ mergeParams: true });

  r.get(
    '/',
    route(async (req, res) => json(res, await getScopeMappings(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type)))),
  );

  const containerRoutes = (path: string, roleClientOf: (req: Request) => string | undefined) => {
    r.get(
      path,
      route(async (req, res) =>
        json(res, await listScopeMappedRoles(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), roleClientOf(req))),
      ),
    );
    r.post(
      path,
      route(async (req, res) => {
        const reps = arrayBody<ScopeRoleRep>(req, 'RoleRepresentation');
        await addScopeMappingsTo(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), roleClientOf(req), reps);
        noContent(res);
      }),
    );
    r.delete(
      path,
      route(async (req, res) => {
        const reps = arrayBody<ScopeRoleRep>(req, 'RoleRepresentation');
        await removeScopeMappings(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), roleClientOf(req), reps);
        noContent(res);
      }),
    );
    r.get(
      `${path}/available`,
      route(async (req, res) =>
        json(res, await listAvailableScopeRoles(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), roleClientOf(req))),
      ),
    );
    r.get(
      `${path}/composite`,
      route(async (req, res) => {
        const brief = qBool(req, 'briefRepresentation') ?? true;
        json(res, await listEffectiveScopeRoles(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), roleClientOf(req), brief));
      }),
    );
  };
  containerRoutes('/realm', () => undefined);
  containerRoutes('/clients/:roleClient', (req) => req.params.roleClient as string);
  return r;
}
