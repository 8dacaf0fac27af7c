import { Router } from 'express';
import { createClient, deleteClient, updateClient } from '../../src/services/clients/client-writes';
import { getClient, listClients } from '../../src/services/clients/clients';
import { created, ctxOf, json, jsonBody, noContent, qBool, qInt, qStr, realmOf, route } from '../http';

/** `/admin/realms/{realm}/clients`: list, create, get, update, delete (sub-resources: rest/client-parts.ts). */
export const clientsRouter = Router({ mergeParams: true });

const uuidOf = (params: Record<string, unknown>) => String(params.clientUuid);

clientsRouter.get(
  '/',
  route(async (req, res) =>
    json(
      res,
      await listClients(ctxOf(res), realmOf(res), {
        clientId: qStr(req, 'clientId'),
        search: qBool(req, 'search'),
        q: qStr(req, 'q'),
        viewableOnly: qBool(req, 'viewableOnly'),
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
      }),
    ),
  ),
);

clientsRouter.post(
  '/',
  route(async (req, res) => {
    const id = await createClient(ctxOf(res), realmOf(res), jsonBody(req, 'ClientRepresentation'));
    created(req, res, id);
  }),
);

clientsRouter.get(
  '/:clientUuid',
  route(async (req, res) => json(res, await getClient(ctxOf(res), realmOf(res), uuidOf(req.params)))),
);

clientsRouter.put(
  '/:clientUuid',
  route(async (req, res) => {
    await updateClient(ctxOf(res), realmOf(res), uuidOf(req.params), jsonBody(req, 'ClientRepresentation'));
    noContent(res);
  }),
);

clientsRouter.delete(
  '/:clientUuid',
  route(async (req, res) => {
    await deleteClient(ctxOf(res), realmOf(res), uuidOf(req.params));
    noContent(res);
  }),
);
