import { Router } from 'express';
import { listConsents, revokeConsent } from '../../src/services/users/consents';
import { ctxOf, json, noContent, realmOf, route } from '../http';
import { userOf } from '../parents';

/** `/admin/realms/{realm}/users/{userId}/consents...`: consents and offline grants of a user. */
export const userConsentsRouter = Router({ mergeParams: true });

userConsentsRouter.get(
  '/',
  route(async (req, res) => json(res, await listConsents(ctxOf(res), realmOf(res), await userOf(req, res)))),
);

userConsentsRouter.delete(
  '/:clientId',
  route(async (req, res) => {
    await revokeConsent(ctxOf(res), realmOf(res), await userOf(req, res), String(req.params.clientId));
    noContent(res);
  }),
);
