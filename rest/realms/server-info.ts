import { Router } from 'express';
import { getServerInfo } from '../../src/services/realms/server-info';
import { ctxOf, json, route } from '../http';

/** `GET /admin/serverinfo`: the server's catalogues (config reference §11); any authenticated admin. */
export const serverInfoRouter = Router();

serverInfoRouter.get(
  '/',
  route(async (_req, res) => json(res, await getServerInfo(ctxOf(res)))),
);
