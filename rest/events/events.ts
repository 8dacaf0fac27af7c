import { type Request, Router } from 'express';
import {
  clearAdminEvents,
  clearEvents,
  getEventsConfig,
  listAdminEvents,
  listEvents,
  updateEventsConfig,
} from '../../src/services/events/events';
import { ctxOf, json, noContent, parseJson, qInt, qStr, realmOf, route } from '../http';

/** `/admin/realms/{realm}/events`, `/events/config` and `/admin-events` (reference §7). */
export const eventsRouter = Router({ mergeParams: true });
export const adminEventsRouter = Router({ mergeParams: true });

/** A repeatable query parameter (`type=A&type=B`); values may also be comma-separated. */
function qList(req: Request, name: string): string[] | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** The query of a listing: repeatable parameters, single ones, and `first`/`max` (not an integer → JAX-RS's 404). */
function listQuery<L extends string, S extends string>(req: Request, lists: L[], strings: S[]) {
  return {
    ...(Object.fromEntries(lists.map((n) => [n, qList(req, n)])) as Record<L, string[] | undefined>),
    ...(Object.fromEntries(strings.map((n) => [n, qStr(req, n)])) as Record<S, string | undefined>),
    first: qInt(req, 'first'),
    max: qInt(req, 'max'),
  };
}

eventsRouter.get(
  '/config',
  route(async (_req, res) => json(res, await getEventsConfig(ctxOf(res), realmOf(res)))),
);

eventsRouter.put(
  '/config',
  route(async (req, res) => {
    await updateEventsConfig(ctxOf(res), realmOf(res), parseJson(req));
    noContent(res);
  }),
);

eventsRouter.get(
  '/',
  route(async (req, res) =>
    json(
      res,
      await listEvents(
        ctxOf(res),
        realmOf(res),
        listQuery(req, ['type'], ['client', 'user', 'ipAddress', 'dateFrom', 'dateTo', 'direction']),
      ),
    ),
  ),
);

eventsRouter.delete(
  '/',
  route(async (_req, res) => {
    await clearEvents(ctxOf(res), realmOf(res));
    noContent(res);
  }),
);

adminEventsRouter.get(
  '/',
  route(async (req, res) =>
    json(
      res,
      await listAdminEvents(
        ctxOf(res),
        realmOf(res),
        listQuery(
          req,
          ['operationTypes', 'resourceTypes'],
          ['authRealm', 'authClient', 'authUser', 'authIpAddress', 'resourcePath', 'dateFrom', 'dateTo', 'direction'],
        ),
      ),
    ),
  ),
);

adminEventsRouter.delete(
  '/',
  route(async (_req, res) => {
    await clearAdminEvents(ctxOf(res), realmOf(res));
    noContent(res);
  }),
);
