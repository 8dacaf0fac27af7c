import { type Request, type Response, Router } from 'express';
import type { RoleRep } from '../../src/representations/role';
import {
  addRoleMappingsTo,
  getRoleMappings,
  groupMappingOwner,
  listAvailableRoles,
  listEffectiveRoles,
  listMappedRoles,
  removeRoleMappings,
  userMappingOwner,
  type MappingOwner,
  type MappingOwnerType,
} from '../../src/services/roles/role-mappings';
import { groupOf } from '../groups/parent';
import { arrayBody, ctxOf, json, noContent, qBool, realmOf, route } from '../http';
import { userOf } from '../parents';

/**
 * `/{users|groups}/{id}/role-mappings/...` — one router for both owner types
 * (`res.locals.ownerType`); the realm and client variants differ only by the client UUID.
 */
export const roleMappingRouter = Router({ mergeParams: true });

/** `{ownerId}`, resolved once per request: 404 `User not found` (403 without query-users), or 404 `Could not find group by id`. */
async function ownerOf(req: Request, res: Response): Promise<MappingOwner> {
  return (res.locals.ownerType as MappingOwnerType) === 'users'
    ? userMappingOwner(await userOf(req, res, 'ownerId'))
    : groupMappingOwner(await groupOf(req, res, 'ownerId'));
}

roleMappingRouter.get(
  '/',
  route(async (req, res) => json(res, await getRoleMappings(ctxOf(res), realmOf(res), await ownerOf(req, res)))),
);

/** The realm (`/realm`) or client (`/clients/:mapClient`) variant of the mapping endpoints. */
function containerRoutes(path: string, clientOf: (req: Request) => string | undefined) {
  roleMappingRouter.get(
    path,
    route(async (req, res) => json(res, await listMappedRoles(ctxOf(res), realmOf(res), await ownerOf(req, res), clientOf(req)))),
  );
  // Writes read the body before the owner is resolved (a bad body is 400 even for an unknown owner).
  roleMappingRouter.post(
    path,
    route(async (req, res) => {
      const reps = arrayBody<RoleRep>(req, 'RoleRepresentation');
      await addRoleMappingsTo(ctxOf(res), realmOf(res), await ownerOf(req, res), clientOf(req), reps);
      noContent(res);
    }),
  );
  roleMappingRouter.delete(
    path,
    route(async (req, res) => {
      const reps = arrayBody<RoleRep>(req, 'RoleRepresentation');
      await removeRoleMappings(ctxOf(res), realmOf(res), await ownerOf(req, res), clientOf(req), reps);
      noContent(res);
    }),
  );
  roleMappingRouter.get(
    `${path}/available`,
    route(async (req, res) => json(res, await listAvailableRoles(ctxOf(res), realmOf(res), await ownerOf(req, res), clientOf(req)))),
  );
  roleMappingRouter.get(
    `${path}/composite`,
    route(async (req, res) => {
      const owner = await ownerOf(req, res);
      json(res, await listEffectiveRoles(ctxOf(res), realmOf(res), owner, clientOf(req), qBool(req, 'briefRepresentation') ?? true));
    }),
  );
}

containerRoutes('/realm', () => undefined);
containerRoutes('/clients/:mapClient', (req) => req.params.mapClient as string);
