import { Router } from 'express';
import {
  getClientPolicies,
  getClientProfiles,
  updateClientPolicies,
  updateClientProfiles,
} from '../../src/services/clients/client-policies';
import { ctxOf, json, jsonBody, noContent, qBool, realmOf, route } from '../http';

/** `/{realm}/client-policies`: the realm's client profiles and policies (config reference §10.1). */
export const clientPoliciesRouter = Router({ mergeParams: true });

clientPoliciesRouter.get(
  '/profiles',
  route(async (req, res) => json(res, await getClientProfiles(ctxOf(res), realmOf(res), qBool(req, 'include-global-profiles') ?? false))),
);
clientPoliciesRouter.put(
  '/profiles',
  route(async (req, res) => {
    await updateClientProfiles(ctxOf(res), realmOf(res), jsonBody(req, 'ClientProfilesRepresentation'));
    noContent(res);
  }),
);
clientPoliciesRouter.get(
  '/policies',
  route(async (req, res) => json(res, await getClientPolicies(ctxOf(res), realmOf(res), qBool(req, 'include-global-policies') ?? false))),
);
clientPoliciesRouter.put(
  '/policies',
  route(async (req, res) => {
    await updateClientPolicies(ctxOf(res), realmOf(res), jsonBody(req, 'ClientPoliciesRepresentation'));
    noContent(res);
  }),
);
