import { Router } from 'express';
import {
  addRealmDefaultScope,
  listRealmDefaultScopes,
  removeRealmDefaultScope,
  type RealmScopeList,
} from '../../src/services/client-scopes/client-scopes';
import { ctxOf, json, noContent, realmOf, route } from '../http';

/** `/default-default-client-scopes` and `/default-optional-client-scopes`: one router per list. */
export function realmDefaultScopesRouter(list: RealmScopeList): Router {
  const r = Router({ mergeParams: true });
  r.get(
    '/',
    route(async (_req, res) => json(res, await listRealmDefaultScopes(ctxOf(res), realmOf(res), list))),
  );
  r.put(
    '/:scopeId',
    route(async (req, res) => {
      await addRealmDefaultScope(ctxOf(res), realmOf(res), list, req.params.scopeId as string);
      noContent(res);
    }),
  );
  r.delete(
    '/:scopeId',
    route(async (req, res) => {
      await removeRealmDefaultScope(ctxOf(res), realmOf(res), list, req.params.scopeId as string);
      noContent(res);
    }),
  );
  return r;
}
