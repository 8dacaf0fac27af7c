import { Router } from 'express';
import { listUserOfflineSessions, listUserSessions, logoutUser } from '../../src/services/sessions/sessions';
import { ctxOf, json, noContent, realmOf, route } from '../http';
import { userOf } from '../parents';

/** `/users/{id}/sessions`, `/users/{id}/offline-sessions/{clientUuid}`, `POST /users/{id}/logout` (reference §4.13). */
export const userSessionsRouter = Router({ mergeParams: true });

userSessionsRouter.get(
  '/sessions',
  route(async (req, res) => json(res, await listUserSessions(ctxOf(res), realmOf(res), await userOf(req, res)))),
);

userSessionsRouter.get(
  '/offline-sessions/:clientUuid',
  route(async (req, res) =>
    json(res, await listUserOfflineSessions(ctxOf(res), realmOf(res), await userOf(req, res), String(req.params.clientUuid))),
  ),
);

userSessionsRouter.post(
  '/logout',
  route(async (req, res) => {
    await logoutUser(ctxOf(res), realmOf(res), await userOf(req, res));
    noContent(res);
  }),
);
