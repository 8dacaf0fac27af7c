import { Router } from 'express';
import type { ClientScopeRepresentation } from '../../src/representations/client-scope';
import {
  createClientScope,
  deleteClientScope,
  getClientScope,
  listClientScopes,
  updateClientScope,
} from '../../src/services/client-scopes/client-scopes';
import { created, ctxOf, json, jsonBody, noContent, realmOf, route } from '../http';

/** `/client-scopes` (and the deprecated alias `/client-templates`): client scope CRUD. */
export const clientScopesRouter = Router({ mergeParams: true });
const REP = 'ClientScopeRepresentation';

clientScopesRouter.get(
  '/',
  route(async (_req, res) => json(res, await listClientScopes(ctxOf(res), realmOf(res)))),
);
clientScopesRouter.post(
  '/',
  route(async (req, res) =>
    created(req, res, await createClientScope(ctxOf(res), realmOf(res), jsonBody<ClientScopeRepresentation>(req, REP))),
  ),
);
clientScopesRouter.get(
  '/:id',
  route(async (req, res) => json(res, await getClientScope(ctxOf(res), realmOf(res), req.params.id as string))),
);
clientScopesRouter.put(
  '/:id',
  route(async (req, res) => {
    await updateClientScope(ctxOf(res), realmOf(res), req.params.id as string, jsonBody<ClientScopeRepresentation>(req, REP));
    noContent(res);
  }),
);
clientScopesRouter.delete(
  '/:id',
  route(async (req, res) => {
    await deleteClientScope(ctxOf(res), realmOf(res), req.params.id as string);
    noContent(res);
  }),
);
