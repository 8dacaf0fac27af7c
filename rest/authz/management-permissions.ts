import type { Request, Response, Router } from 'express';
import type { ManagementPermissionReference } from '../../src/services/authz/admin-permissions';
import type { MgmtBody } from '../../src/services/authz/management-permissions';
import { json, parseJson, route } from '../http';

/**
 * `GET`/`PUT .../management/permissions` (and `users-management-permissions`) on one router: the GET
 * and the PUT (its JSON body read as Keycloak reads it, before the method's own checks) call the same
 * service function, which checks access and answers Keycloak's ManagementPermissionReference.
 */
export type MgmtAnswer = (req: Request, res: Response, body: MgmtBody) => Promise<ManagementPermissionReference>;

export function managementPermissionRoutes(router: Router, path: string, answer: MgmtAnswer): void {
  router.get(
    path,
    route(async (req, res) => json(res, await answer(req, res, { put: false }))),
  );
  router.put(
    path,
    route(async (req, res) => json(res, await answer(req, res, { put: true, body: parseJson(req) }))),
  );
}
