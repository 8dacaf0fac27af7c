import { type Request, type Response, Router } from 'express';
import type { ScopeOwnerType } from '../../src/services/client-scopes/scope-owner';
import {
  addScopeMappings,
  getScopeMappings,
  listAvailableScopeRoles,
  listEffectiveScopeRoles,
  listScopeMappedRoles,
  removeScopeMappings,
  type ScopeRoleRep,
} from '../../src/services/client-scopes/scope-mappings';
import { arrayBody, ctxOf, json, noContent, qBool, realmOf, route } from '../http';

/**
 * `/{clients|client-scopes}/:ownerId/scope-mappings/...` — one router factory, mounted once per
 * owner type; the realm and client variants differ only by the client UUID.
 */
export function scopeMappingsRouter(type: ScopeOwnerType): Router {
  const r = Router({ mergeParams: true });
  const args = (req: Request, res: Response) => [ctxOf(res), realmOf(res), type, req.params.ownerId as string] as const;

  r.get(
    '/',
    route(async (req, res) => json(res, await getScopeMappings(...args(req, res)))),
  );

  const containerRoutes = (path: string, clientOf: (req: Request) => string | undefined) => {
    r.get(
      path,
      route(async (req, res) => json(res, await listScopeMappedRoles(...args(req, res), clientOf(req)))),
    );
    r.post(
      path,
      route(async (req, res) => {
        await addScopeMappings(...args(req, res), clientOf(req), arrayBody<ScopeRoleRep>(req, 'RoleRepresentation'));
        noContent(res);
      }),
    );
    r.delete(
      path,
      route(async (req, res) => {
        await removeScopeMappings(...args(req, res), clientOf(req), arrayBody<ScopeRoleRep>(req, 'RoleRepresentation'));
        noContent(res);
      }),
    );
    r.get(
      `${path}/available`,
      route(async (req, res) => json(res, await listAvailableScopeRoles(...args(req, res), clientOf(req)))),
    );
    r.get(
      `${path}/composite`,
      route(async (req, res) =>
        json(res, await listEffectiveScopeRoles(...args(req, res), clientOf(req), qBool(req, 'briefRepresentation') ?? true)),
      ),
    );
  };
  containerRoutes('/realm', () => undefined);
  containerRoutes('/clients/:roleClient', (req) => req.params.roleClient as string);
  return r;
}
