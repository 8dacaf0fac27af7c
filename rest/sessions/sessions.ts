import { Router } from 'express';
import { clientSessionStats, deleteSession, logoutAll, pushRevocation } from '../../src/services/sessions/sessions';
import { ctxOf, json, noContent, qBool, realmOf, route } from '../http';

/** Realm-level session endpoints (reference §9): client-session-stats, logout-all, push-revocation, sessions/{id}. */
export const realmSessionsRouter = Router({ mergeParams: true });

realmSessionsRouter.get(
  '/client-session-stats',
  route(async (_req, res) => json(res, await clientSessionStats(ctxOf(res), realmOf(res)))),
);

realmSessionsRouter.post(
  '/logout-all',
  route(async (_req, res) => json(res, await logoutAll(ctxOf(res), realmOf(res)))),
);

realmSessionsRouter.post(
  '/push-revocation',
  route(async (_req, res) => json(res, await pushRevocation(ctxOf(res), realmOf(res)))),
);

realmSessionsRouter.delete(
  '/sessions/:session',
  route(async (req, res) => {
    await deleteSession(ctxOf(res), realmOf(res), String(req.params.session), qBool(req, 'isOffline') ?? false);
    noContent(res);
  }),
);
