import { Router } from 'express';
import { listUserOfflineSessions, listUserSessions, logoutUser } from '../../src/services/sessions/sessions';
import { ctxOf, json, noContent, realmOf, route } from '../http';

/** `/users/{id}/sessions`, `/users/{id}/offline-sessions/{clientUuid}`, `POST /users/{id}/logout` (reference §4.13). */
export const userSessionsRouter = Router({ mergeParams: true });

userSessionsRouter.get(
  '/sessions',
  route(async (req, res) => json(res, await listUserSessions(ctxOf(res), realmOf(res), String(req.params.userId)))),
);

userSessionsRouter.get(
  '/offline-sessions/:clientUuid',
  route(async (req, res) =>
    json(res, await listUserOfflineSessions(ctxOf(res), realmOf(res), String(req.params.userId), String(req.params.clientUuid))),
  ),
);

userSessionsRouter.post(
  '/logout',
  route(async (req, res) => {
    await logoutUser(ctxOf(res), realmOf(res), String(req.params.userId));
    noContent(res);
  }),
);
