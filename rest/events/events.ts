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
      await listEvents(ctxOf(res), realmOf(res), {
        type: qList(req, 'type'),
        client: qStr(req, 'client'),
        user: qStr(req, 'user'),
        ipAddress: qStr(req, 'ipAddress'),
        dateFrom: qStr(req, 'dateFrom'),
        dateTo: qStr(req, 'dateTo'),
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
        direction: qStr(req, 'direction'),
      }),
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
      await listAdminEvents(ctxOf(res), realmOf(res), {
        operationTypes: qList(req, 'operationTypes'),
        resourceTypes: qList(req, 'resourceTypes'),
        authRealm: qStr(req, 'authRealm'),
        authClient: qStr(req, 'authClient'),
        authUser: qStr(req, 'authUser'),
        authIpAddress: qStr(req, 'authIpAddress'),
        resourcePath: qStr(req, 'resourcePath'),
        dateFrom: qStr(req, 'dateFrom'),
        dateTo: qStr(req, 'dateTo'),
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
        direction: qStr(req, 'direction'),
      }),
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
