import { Router } from 'express';
import {
  createResource,
  deleteResource,
  getResource,
  listResources,
  resourceAttributes,
  resourcePermissions,
  resourceScopes,
  searchResource,
  updateResource,
} from '../../src/services/authz/resources';
import { ctxOf, json, noContent, parseJson, qBool, qInt, qStr, route } from '../http';
import { jsonOrEmpty, targetOf } from './parent';

/** `.../authz/resource-server/resource`: protected resources. */
export const resourceRouter = Router({ mergeParams: true });

const id = (p: Record<string, unknown>) => String(p.id);

resourceRouter.get(
  '/',
  route(async (req, res) => {
    const q = {
      _id: qStr(req, '_id'),
      name: qStr(req, 'name'),
      uri: qStr(req, 'uri'),
      owner: qStr(req, 'owner'),
      type: qStr(req, 'type'),
      scope: qStr(req, 'scope'),
      matchingUri: qBool(req, 'matchingUri'),
      exactName: qBool(req, 'exactName'),
      deep: qBool(req, 'deep'),
      first: qInt(req, 'first'),
      max: qInt(req, 'max'),
    };
    json(res, await listResources(ctxOf(res), await targetOf(req, res), q));
  }),
);
resourceRouter.post(
  '/',
  route(async (req, res) => {
    const body = parseJson(req);
    json(res, await createResource(ctxOf(res), await targetOf(req, res), body), 201);
  }),
);
resourceRouter.get(
  '/search',
  route(async (req, res) => jsonOrEmpty(res, await searchResource(ctxOf(res), await targetOf(req, res), qStr(req, 'name')), 204)),
);
resourceRouter.get(
  '/:id',
  route(async (req, res) => json(res, await getResource(ctxOf(res), await targetOf(req, res), id(req.params)))),
);
resourceRouter.put(
  '/:id',
  route(async (req, res) => {
    const body = parseJson(req);
    await updateResource(ctxOf(res), await targetOf(req, res), id(req.params), body);
    noContent(res);
  }),
);
resourceRouter.delete(
  '/:id',
  route(async (req, res) => {
    await deleteResource(ctxOf(res), await targetOf(req, res), id(req.params));
    noContent(res);
  }),
);
resourceRouter.get(
  '/:id/scopes',
  route(async (req, res) => json(res, await resourceScopes(ctxOf(res), await targetOf(req, res), id(req.params)))),
);
resourceRouter.get(
  '/:id/permissions',
  route(async (req, res) => json(res, await resourcePermissions(ctxOf(res), await targetOf(req, res), id(req.params)))),
);
resourceRouter.get(
  '/:id/attributes',
  route(async (req, res) => json(res, await resourceAttributes(ctxOf(res), await targetOf(req, res), id(req.params)))),
);
