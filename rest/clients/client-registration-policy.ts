import { Router } from 'express';
import { clientRegistrationPolicyProviders } from '../../src/services/clients/client-registration-policy';
import { ctxOf, json, realmOf, route } from '../http';

/** `/admin/realms/{realm}/client-registration-policy/providers`. */
export const clientRegistrationPolicyRouter = Router({ mergeParams: true });

clientRegistrationPolicyRouter.get(
  '/providers',
  route(async (_req, res) => json(res, await clientRegistrationPolicyProviders(ctxOf(res), realmOf(res)))),
);
