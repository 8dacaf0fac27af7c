import { Router } from 'express';
import {
  type ClientInitialAccessInput,
  createClientInitialAccess,
  deleteClientInitialAccess,
  listClientInitialAccess,
} from '../../src/services/clients/client-initial-access';
import { ctxOf, json, jsonBody, noContent, realmOf, requestPath, route } from '../http';

/** `/admin/realms/{realm}/clients-initial-access`: create (201 with Location and a JSON body), list, delete. */
export const clientsInitialAccessRouter = Router({ mergeParams: true });

clientsInitialAccessRouter.get(
  '/',
  route(async (_req, res) => json(res, await listClientInitialAccess(ctxOf(res), realmOf(res)))),
);

clientsInitialAccessRouter.post(
  '/',
  route(async (req, res) => {
    const input = jsonBody<ClientInitialAccessInput>(req, 'ClientInitialAccessCreatePresentation', () => ({}));
    const ctx = ctxOf(res);
    const rep = await createClientInitialAccess(ctx, realmOf(res), input);
    res.location(`${ctx.baseUrl}${requestPath(req)}/${rep.id}`);
    json(res, rep, 201);
  }),
);

clientsInitialAccessRouter.delete(
  '/:id',
  route(async (req, res) => {
    await deleteClientInitialAccess(ctxOf(res), realmOf(res), req.params.id as string);
    noContent(res);
  }),
);
