import { Router } from 'express';
import { linkFederatedIdentity, listFederatedIdentities, unlinkFederatedIdentity } from '../../src/services/users/federated-identities';
import type { Representation } from '../../src/representations/schema';
import { ctxOf, json, jsonBody, noContent, realmOf, route } from '../http';
import { userOf } from '../parents';

/** `/admin/realms/{realm}/users/{userId}/federated-identity...`: identity provider links of a user. */
export const userIdentitiesRouter = Router({ mergeParams: true });

userIdentitiesRouter.get(
  '/',
  route(async (req, res) => json(res, await listFederatedIdentities(ctxOf(res), realmOf(res), await userOf(req, res)))),
);

userIdentitiesRouter.post(
  '/:alias',
  route(async (req, res) => {
    const body = jsonBody<Representation<'FederatedIdentityRepresentation'>>(req, 'FederatedIdentityRepresentation');
    await linkFederatedIdentity(ctxOf(res), realmOf(res), await userOf(req, res), String(req.params.alias), body);
    noContent(res);
  }),
);

userIdentitiesRouter.delete(
  '/:alias',
  route(async (req, res) => {
    await unlinkFederatedIdentity(ctxOf(res), realmOf(res), await userOf(req, res), String(req.params.alias));
    noContent(res);
  }),
);
