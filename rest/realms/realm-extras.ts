import { Router } from 'express';
import { credentialRegistrators, usersManagementPermissions, whoAmI } from '../../src/services/realms/whoami';
import { ctxOf, json, qStr, realmOf, route } from '../http';

/** `/{realm}/credential-registrators` and `/{realm}/users-management-permissions`. */
export const realmExtrasRouter = Router({ mergeParams: true });

realmExtrasRouter.get(
  '/credential-registrators',
  route(async (_req, res) => json(res, await credentialRegistrators(ctxOf(res), realmOf(res)))),
);
const permissions = route(async () => usersManagementPermissions());
realmExtrasRouter.get('/users-management-permissions', permissions);
realmExtrasRouter.put('/users-management-permissions', permissions);

/** `/admin/{realm}/console/whoami`: the admin console's view of its caller (core reference §2.9). */
export const consoleRouter = Router({ mergeParams: true });

consoleRouter.get(
  '/whoami',
  route(async (req, res) => json(res, await whoAmI(ctxOf(res), String(req.params.realm), qStr(req, 'currentRealm')))),
);
