import { type Request, type Response, Router } from 'express';
import {
  addRoleMappings,
  getRoleMappings,
  listAvailableRoles,
  listEffectiveRoles,
  listMappedRoles,
  removeRoleMappings,
  type MappingOwnerType,
  type MappingRoleRep,
} from '../../src/services/roles/role-mappings';
import { arrayBody, ctxOf, json, noContent, qBool, realmOf, route } from '../http';

/**
 * `/{users|groups}/{id}/role-mappings/...` — one router for both owner types
 * (`res.locals.ownerType`); the realm and client variants differ only by the client UUID.
 */
export const roleMappingRouter = Router({ mergeParams: true });

const args = (req: Request, res: Response) =>
  [ctxOf(res), realmOf(res), res.locals.ownerType as MappingOwnerType, req.params.ownerId as string] as const;

roleMappingRouter.get(
  '/',
  route(async (req, res) => json(res, await getRoleMappings(...args(req, res)))),
);

/** The realm (`/realm`) or client (`/clients/:mapClient`) variant of the mapping endpoints. */
function containerRoutes(path: string, clientOf: (req: Request) => string | undefined) {
  roleMappingRouter.get(
    path,
    route(async (req, res) => json(res, await listMappedRoles(...args(req, res), clientOf(req)))),
  );
  roleMappingRouter.post(
    path,
    route(async (req, res) => {
      await addRoleMappings(...args(req, res), clientOf(req), arrayBody<MappingRoleRep>(req, 'RoleRepresentation'));
      noContent(res);
    }),
  );
  roleMappingRouter.delete(
    path,
    route(async (req, res) => {
      await removeRoleMappings(...args(req, res), clientOf(req), arrayBody<MappingRoleRep>(req, 'RoleRepresentation'));
      noContent(res);
    }),
  );
  roleMappingRouter.get(
    `${path}/available`,
    route(async (req, res) => json(res, await listAvailableRoles(...args(req, res), clientOf(req)))),
  );
  roleMappingRouter.get(
    `${path}/composite`,
    route(async (req, res) =>
      json(res, await listEffectiveRoles(...args(req, res), clientOf(req), qBool(req, 'briefRepresentation') ?? true)),
    ),
  );
}

containerRoutes('/realm', () => undefined);
containerRoutes('/clients/:mapClient', (req) => req.params.mapClient as string);
