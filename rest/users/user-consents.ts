import { Router } from 'express';
import { listConsents, revokeConsent } from '../../src/services/users/consents';
import { ctxOf, json, noContent, realmOf, route } from '../http';

/** `/admin/realms/{realm}/users/{userId}/consents...`: consents and offline grants of a user. */
export const userConsentsRouter = Router({ mergeParams: true });

const userIdOf = (params: Record<string, unknown>) => String(params.userId);

userConsentsRouter.get(
  '/',
  route(async (req, res) => json(res, await listConsents(ctxOf(res), realmOf(res), userIdOf(req.params)))),
);

userConsentsRouter.delete(
  '/:clientId',
  route(async (req, res) => {
    await revokeConsent(ctxOf(res), realmOf(res), userIdOf(req.params), String(req.params.clientId));
    noContent(res);
  }),
);
