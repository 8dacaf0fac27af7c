import { Router } from 'express';
import {
  createScope,
  deleteScope,
  getScope,
  listScopes,
  scopePermissions,
  scopeResources,
  searchScope,
  updateScope,
} from '../../src/services/authz/scopes';
import { ctxOf, json, noContent, parseJson, qInt, qStr, route } from '../http';
import { jsonOrEmpty, targetOf } from './parent';

/** `.../authz/resource-server/scope`: authorization scopes. */
export const scopeRouter = Router({ mergeParams: true });

const id = (p: Record<string, unknown>) => String(p.id);

scopeRouter.get(
  '/',
  route(async (req, res) => {
    const q = { scopeId: qStr(req, 'scopeId'), name: qStr(req, 'name'), first: qInt(req, 'first'), max: qInt(req, 'max') };
    json(res, await listScopes(ctxOf(res), await targetOf(req, res), q));
  }),
);
scopeRouter.post(
  '/',
  route(async (req, res) => {
    const body = parseJson(req);
    json(res, await createScope(ctxOf(res), await targetOf(req, res), body), 201);
  }),
);
scopeRouter.get(
  '/search',
  route(async (req, res) => jsonOrEmpty(res, await searchScope(ctxOf(res), await targetOf(req, res), qStr(req, 'name')), 200)),
);
scopeRouter.get(
  '/:id',
  route(async (req, res) => json(res, await getScope(ctxOf(res), await targetOf(req, res), id(req.params)))),
);
scopeRouter.put(
  '/:id',
  route(async (req, res) => {
    const body = parseJson(req);
    await updateScope(ctxOf(res), await targetOf(req, res), id(req.params), body);
    noContent(res);
  }),
);
scopeRouter.delete(
  '/:id',
  route(async (req, res) => {
    await deleteScope(ctxOf(res), await targetOf(req, res), id(req.params));
    noContent(res);
  }),
);
scopeRouter.get(
  '/:id/resources',
  route(async (req, res) => json(res, await scopeResources(ctxOf(res), await targetOf(req, res), id(req.params)))),
);
scopeRouter.get(
  '/:id/permissions',
  route(async (req, res) => json(res, await scopePermissions(ctxOf(res), await targetOf(req, res), id(req.params)))),
);
