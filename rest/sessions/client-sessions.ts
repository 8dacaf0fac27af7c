import { type Request, type Response, Router } from 'express';
import { clientSessionCount, listClientSessions, pushClientRevocation } from '../../src/services/sessions/sessions';
import { ctxOf, json, qInt, realmOf, route } from '../http';

/** `/clients/{id}/session-count`, `offline-session-count`, `user-sessions`, `offline-sessions`, `push-revocation` (config §1.9). */
export const clientSessionsRouter = Router({ mergeParams: true });

const uuid = (req: Request) => String(req.params.clientUuid);
const page = (req: Request) => ({ first: qInt(req, 'first'), max: qInt(req, 'max') });
const count = (offline: boolean) =>
  route(async (req: Request, res: Response) => json(res, await clientSessionCount(ctxOf(res), realmOf(res), uuid(req), offline)));
const list = (offline: boolean) =>
  route(async (req: Request, res: Response) =>
    json(res, await listClientSessions(ctxOf(res), realmOf(res), uuid(req), offline, page(req))),
  );

clientSessionsRouter.get('/session-count', count(false));
clientSessionsRouter.get('/offline-session-count', count(true));
clientSessionsRouter.get('/user-sessions', list(false));
clientSessionsRouter.get('/offline-sessions', list(true));

clientSessionsRouter.post(
  '/push-revocation',
  route(async (req, res) => json(res, await pushClientRevocation(ctxOf(res), realmOf(res), uuid(req)))),
);
