import { type Request, Router } from 'express';
import {
  addComposites,
  getClientComposites,
  getComposites,
  getRealmComposites,
  removeComposites,
} from '../../src/services/roles/role-composites';
import {
  createRole,
  deleteRole,
  getRole,
  listRoles,
  roleGroups,
  roleUsers,
  updateRole,
  type RoleInput,
} from '../../src/services/roles/roles';
import type { RoleLocator } from '../../src/services/roles/role-access';
import { roleManagementPermissions } from '../../src/services/authz/management-permissions';
import { managementPermissionRoutes } from '../authz/management-permissions';
import { arrayBody, created, ctxOf, json, jsonBody, noContent, qBool, qInt, qStr, realmOf, route } from '../http';

/**
 * The `{roleOwner}` family — realm roles (`/roles`) and client roles (`/clients/{uuid}/roles`),
 * one router factory parameterised by how the owner is named — and `/roles-by-id`.
 */
type OwnerOf = (req: Request) => string | undefined;

/** Routes on one role (`/:name` or `/:id`) shared by the by-name and by-id routers. */
function roleRoutes(router: Router, param: string, locate: (req: Request) => RoleLocator) {
  const at = `/:${param}`;
  router.get(
    at,
    route(async (req, res) => json(res, await getRole(ctxOf(res), realmOf(res), locate(req)))),
  );
  router.put(
    at,
    route(async (req, res) => {
      await updateRole(ctxOf(res), realmOf(res), locate(req), jsonBody<RoleInput>(req, 'RoleRepresentation'));
      noContent(res);
    }),
  );
  router.delete(
    at,
    route(async (req, res) => {
      await deleteRole(ctxOf(res), realmOf(res), locate(req));
      noContent(res);
    }),
  );
  router.get(
    `${at}/composites`,
    route(async (req, res) =>
      json(
        res,
        await getComposites(ctxOf(res), realmOf(res), locate(req), {
          search: qStr(req, 'search'),
          first: qInt(req, 'first'),
          max: qInt(req, 'max'),
        }),
      ),
    ),
  );
  router.post(
    `${at}/composites`,
    route(async (req, res) => {
      await addComposites(ctxOf(res), realmOf(res), locate(req), arrayBody(req, 'RoleRepresentation'));
      noContent(res);
    }),
  );
  router.delete(
    `${at}/composites`,
    route(async (req, res) => {
      await removeComposites(ctxOf(res), realmOf(res), locate(req), arrayBody(req, 'RoleRepresentation'));
      noContent(res);
    }),
  );
  router.get(
    `${at}/composites/realm`,
    route(async (req, res) => json(res, await getRealmComposites(ctxOf(res), realmOf(res), locate(req)))),
  );
  router.get(
    `${at}/composites/clients/:compositeClient`,
    route(async (req, res) =>
      json(res, await getClientComposites(ctxOf(res), realmOf(res), locate(req), req.params.compositeClient as string)),
    ),
  );
}

/** `management/permissions` of one role (FGAP v1, src/services/authz/management-permissions.ts). */
function permissionRoutes(router: Router, param: string, locate: (req: Request) => RoleLocator) {
  managementPermissionRoutes(router, `/:${param}/management/permissions`, async (req, res, body) =>
    roleManagementPermissions(ctxOf(res), realmOf(res), locate(req), body),
  );
}

function roleOwnerRouter(ownerOf: OwnerOf): Router {
  const router = Router({ mergeParams: true });
  router.get(
    '/',
    route(async (req, res) =>
      json(
        res,
        await listRoles(ctxOf(res), realmOf(res), ownerOf(req), {
          search: qStr(req, 'search'),
          first: qInt(req, 'first'),
          max: qInt(req, 'max'),
          brief: qBool(req, 'briefRepresentation'),
        }),
      ),
    ),
  );
  router.post(
    '/',
    route(async (req, res) => {
      const name = await createRole(ctxOf(res), realmOf(res), ownerOf(req), jsonBody<RoleInput>(req, 'RoleRepresentation'));
      created(req, res, name);
    }),
  );
  const locate = (req: Request): RoleLocator => ({ name: req.params.roleName as string, clientUuid: ownerOf(req) });
  permissionRoutes(router, 'roleName', locate);
  roleRoutes(router, 'roleName', locate);
  const page = (req: Request) => ({ first: qInt(req, 'first'), max: qInt(req, 'max'), brief: qBool(req, 'briefRepresentation') });
  router.get(
    '/:roleName/users',
    route(async (req, res) => json(res, await roleUsers(ctxOf(res), realmOf(res), locate(req), page(req)))),
  );
  router.get(
    '/:roleName/groups',
    route(async (req, res) => json(res, await roleGroups(ctxOf(res), realmOf(res), locate(req), page(req)))),
  );
  return router;
}

/** `/{realm}/roles`. */
export const realmRolesRouter = roleOwnerRouter(() => undefined);
/** `/{realm}/clients/{clientUuid}/roles`. */
export const clientRolesRouter = roleOwnerRouter((req) => req.params.clientUuid as string);

/** `/{realm}/roles-by-id/{id}`. */
export const rolesByIdRouter = Router({ mergeParams: true });
permissionRoutes(rolesByIdRouter, 'roleId', (req) => ({ id: req.params.roleId as string }));
roleRoutes(rolesByIdRouter, 'roleId', (req) => ({ id: req.params.roleId as string }));
