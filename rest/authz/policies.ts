import { type Request, type RequestHandler, type Response, Router } from 'express';
import { errorC } from '../../src/core/errors';
import {
  associatedPolicies,
  createPolicy,
  deletePolicy,
  dependentPolicies,
  getPolicy,
  isPolicyType,
  listPolicies,
  type PolicyQuery,
  policyProviders,
  policyResources,
  policyScopes,
  searchPolicy,
  updatePolicy,
} from '../../src/services/authz/policies';
import { ctxOf, json, noContent, parseJson, qBool, qInt, qStr, route } from '../http';
import { jsonOrEmpty, targetOf } from './parent';

/**
 * `.../authz/resource-server/policy` and `.../permission`: policies and permissions. A first segment
 * that names a policy provider (`role`, `resource`, ...) is a type (typed representations), anything
 * else a policy id. Under `policy/{id}` the generic representation (with `config`) is read and written;
 * under `permission/{id}` and `{type}/{id}` the typed one. An update answers 201, as Keycloak's does.
 */
type Kind = 'policy' | 'permission';

const notAllowed = () => errorC(405, 'HTTP 405 Method Not Allowed');

/** Continues with this route only when `:id` is (or is not) a policy type. */
const whenType =
  (yes: boolean): RequestHandler =>
  (req, _res, next) =>
    isPolicyType(String(req.params.id)) === yes ? next() : next('route');

function query(req: Request, kind: Kind, type?: string): PolicyQuery {
  return {
    policyId: qStr(req, 'policyId'),
    name: qStr(req, 'name'),
    type: type ?? qStr(req, 'type'),
    resource: qStr(req, 'resource'),
    scope: qStr(req, 'scope'),
    permission: kind === 'permission' ? true : qBool(req, 'permission'),
    owner: qStr(req, 'owner'),
    fields: qStr(req, 'fields'),
    first: qInt(req, 'first'),
    max: qInt(req, 'max'),
  };
}

const SUBS = {
  dependentPolicies,
  associatedPolicies,
  resources: policyResources,
  scopes: policyScopes,
} as const;

function policiesRouter(kind: Kind) {
  const r = Router({ mergeParams: true });
  const typedById = kind === 'permission';
  const list = (req: Request, res: Response, typed: boolean, type?: string) =>
    targetOf(req, res).then(async (t) => jsonOrEmpty(res, await listPolicies(ctxOf(res), t, query(req, kind, type), typed), 204));

  r.get(
    '/',
    route((req, res) => list(req, res, typedById)),
  );
  r.post(
    '/',
    route(async (req, res) => {
      const body = parseJson(req);
      json(res, await createPolicy(ctxOf(res), await targetOf(req, res), undefined, body), 201);
    }),
  );
  r.get(
    '/providers',
    route(async (req, res) => json(res, await policyProviders(ctxOf(res), await targetOf(req, res)))),
  );
  r.get(
    '/search',
    route(async (req, res) => {
      const t = await targetOf(req, res);
      jsonOrEmpty(res, await searchPolicy(ctxOf(res), t, qStr(req, 'name'), qStr(req, 'fields'), typedById), 204);
    }),
  );
  for (const [sub, fn] of Object.entries(SUBS)) {
    const handler = route(async (req, res) => json(res, await fn(ctxOf(res), await targetOf(req, res), String(req.params.id))));
    r.get(`/:id/${sub}`, handler);
    r.get(`/:type/:id/${sub}`, handler);
  }
  // `{type}`: the policies of one type, and creating one.
  r.get(
    '/:id',
    whenType(true),
    route((req, res) => list(req, res, true, String(req.params.id))),
  );
  r.post(
    '/:id',
    whenType(true),
    route(async (req, res) => {
      const body = parseJson(req);
      json(res, await createPolicy(ctxOf(res), await targetOf(req, res), String(req.params.id), body), 201);
    }),
  );
  r.put(
    '/:id',
    whenType(true),
    route(async () => {
      throw notAllowed();
    }),
  );
  r.delete(
    '/:id',
    whenType(true),
    route(async () => {
      throw notAllowed();
    }),
  );
  // `{id}`: one policy.
  r.get(
    '/:id',
    route(async (req, res) => {
      const t = await targetOf(req, res);
      json(res, await getPolicy(ctxOf(res), t, String(req.params.id), { typed: typedById, fields: qStr(req, 'fields') }));
    }),
  );
  r.post(
    '/:id',
    route(async () => {
      throw notAllowed();
    }),
  );
  r.put(
    '/:id',
    route(async (req, res) => {
      const body = parseJson(req);
      await updatePolicy(ctxOf(res), await targetOf(req, res), String(req.params.id), body, !typedById);
      res.status(201).end();
    }),
  );
  r.delete(
    '/:id',
    route(async (req, res) => {
      await deletePolicy(ctxOf(res), await targetOf(req, res), String(req.params.id));
      noContent(res);
    }),
  );
  // `{type}/{id}`: one policy in its typed representation.
  r.get(
    '/:type/:id',
    route(async (req, res) => {
      const t = await targetOf(req, res);
      json(res, await getPolicy(ctxOf(res), t, String(req.params.id), { typed: true, fields: qStr(req, 'fields') }));
    }),
  );
  r.put(
    '/:type/:id',
    route(async (req, res) => {
      const body = parseJson(req);
      await updatePolicy(ctxOf(res), await targetOf(req, res), String(req.params.id), body, false);
      res.status(201).end();
    }),
  );
  r.delete(
    '/:type/:id',
    route(async (req, res) => {
      await deletePolicy(ctxOf(res), await targetOf(req, res), String(req.params.id));
      noContent(res);
    }),
  );
  return r;
}

export const policyRouter = policiesRouter('policy');
export const permissionRouter = policiesRouter('permission');
