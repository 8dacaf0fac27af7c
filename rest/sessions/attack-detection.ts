import { Router } from 'express';
import { bruteForceStatus, clearAllLoginFailures, clearUserLoginFailures } from '../../src/services/sessions/brute-force';
import { ctxOf, noContent, realmOf, route } from '../http';

/** `/attack-detection/brute-force/users[/{userId}]` (reference §8.1). */
export const attackDetectionRouter = Router({ mergeParams: true });

attackDetectionRouter.get(
  '/users/:userId',
  route(async (req, res) => {
    const status = await bruteForceStatus(ctxOf(res), realmOf(res), String(req.params.userId));
    // failedLoginNotBefore of a permanent lockout is Java's Long.MAX_VALUE: written as an exact integer.
    const text = JSON.stringify(status, (_k, v) => (typeof v === 'bigint' ? `#big#${v}` : v)).replace(/"#big#(\d+)"/g, '$1');
    res.status(200).type('application/json').send(text);
  }),
);

attackDetectionRouter.delete(
  '/users/:userId',
  route(async (req, res) => {
    await clearUserLoginFailures(ctxOf(res), realmOf(res), String(req.params.userId));
    noContent(res);
  }),
);

attackDetectionRouter.delete(
  '/users',
  route(async (_req, res) => {
    await clearAllLoginFailures(ctxOf(res), realmOf(res));
    noContent(res);
  }),
);
