import { type Request, type Response, Router } from 'express';
import { clientSessionCount, listClientSessions, pushClientRevocation } from '../../src/services/sessions/sessions';
import { ctxOf, json, qInt, realmOf, route } from '../http';
import { clientOf } from '../parents';

/** `/clients/{id}/session-count`, `offline-session-count`, `user-sessions`, `offline-sessions`, `push-revocation` (config §1.9). */
export const clientSessionsRouter = Router({ mergeParams: true });

const page = (req: Request) => ({ first: qInt(req, 'first'), max: qInt(req, 'max') });
const count = (offline: boolean) =>
  route(async (req: Request, res: Response) =>
    json(res, await clientSessionCount(ctxOf(res), realmOf(res), await clientOf(req, res), offline)),
  );
const list = (offline: boolean) =>
  route(async (req: Request, res: Response) => {
    const q = page(req); // a malformed first/max is JAX-RS's 404, before the client is looked up
    json(res, await listClientSessions(ctxOf(res), realmOf(res), await clientOf(req, res), offline, q));
  });

clientSessionsRouter.get('/session-count', count(false));
clientSessionsRouter.get('/offline-session-count', count(true));
clientSessionsRouter.get('/user-sessions', list(false));
clientSessionsRouter.get('/offline-sessions', list(true));

clientSessionsRouter.post(
  '/push-revocation',
  route(async (req, res) => json(res, await pushClientRevocation(ctxOf(res), realmOf(res), await clientOf(req, res)))),
);
