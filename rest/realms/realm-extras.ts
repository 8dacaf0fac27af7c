import { Router } from 'express';
import { credentialRegistrators, whoAmI } from '../../src/services/realms/whoami';
import { usersManagementPermissions } from '../../src/services/authz/management-permissions';
import { managementPermissionRoutes } from '../authz/management-permissions';
import { ctxOf, json, qStr, realmOf, route } from '../http';

/** `/{realm}/credential-registrators` and `/{realm}/users-management-permissions`. */
export const realmExtrasRouter = Router({ mergeParams: true });

realmExtrasRouter.get(
  '/credential-registrators',
  route(async (_req, res) => json(res, await credentialRegistrators(ctxOf(res), realmOf(res)))),
);
managementPermissionRoutes(realmExtrasRouter, '/users-management-permissions', async (_req, res, body) =>
  usersManagementPermissions(ctxOf(res), realmOf(res), body),
);

/** `/admin/{realm}/console/whoami`: the admin console's view of its caller (core reference §2.9). */
export const consoleRouter = Router({ mergeParams: true });

consoleRouter.get(
  '/whoami',
  route(async (req, res) => json(res, await whoAmI(ctxOf(res), String(req.params.realm), qStr(req, 'currentRealm')))),
);
