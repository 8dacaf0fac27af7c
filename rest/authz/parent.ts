import type { Request, Response } from 'express';
import { type AuthzTarget, resourceServerOf } from '../../src/services/authz/access';
import { ctxOf, once, realmOf } from '../http';
import { clientOf } from '../parents';

/**
 * `/clients/{clientUuid}/authz/resource-server/...`: the client (404 `Could not find client`, or 403)
 * and its resource server (404 when authorization services are off), resolved once per request.
 */
export const targetOf = (req: Request, res: Response): Promise<AuthzTarget> =>
  once(res, 'authz-resource-server', async () => resourceServerOf(ctxOf(res), realmOf(res), await clientOf(req, res)));

/** 200 with the JSON, or the given status with no body when there is nothing (Keycloak's searches). */
export function jsonOrEmpty(res: Response, body: unknown, emptyStatus: 200 | 204): void {
  if (body === undefined) res.status(emptyStatus).end();
  else res.status(200).json(body);
}
