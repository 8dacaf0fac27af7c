import { Router } from 'express';
import { listRealmKeys } from '../../src/services/components/keys';
import { ctxOf, json, realmOf, route } from '../http';

/** `GET /admin/realms/{realm}/keys`: the realm's keys metadata (config reference §7). */
export const keysRouter = Router({ mergeParams: true });

keysRouter.get(
  '/',
  route(async (_req, res) => json(res, await listRealmKeys(ctxOf(res), realmOf(res)))),
);
