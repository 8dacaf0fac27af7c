import { Router } from 'express';
import type { CredentialRep } from '../../src/representations/credential';
import {
  configuredUserStorageCredentialTypes,
  deleteCredential,
  disableCredentialTypes,
  listCredentials,
  moveCredential,
  resetPassword,
  setCredentialLabel,
} from '../../src/services/users/credentials';
import { ctxOf, json, jsonBody, noContent, parseJson, realmOf, route, textBody } from '../http';
import { userOf } from '../parents';

/**
 * `/admin/realms/{realm}/users/{userId}/...`: credentials, reset-password, disable-credential-types and
 * configured-user-storage-credential-types. Only these paths match; anything else falls through.
 */
export const userCredentialsRouter = Router({ mergeParams: true });

userCredentialsRouter.get(
  '/credentials',
  route(async (req, res) => json(res, await listCredentials(ctxOf(res), realmOf(res), await userOf(req, res)))),
);

userCredentialsRouter.delete(
  '/credentials/:credentialId',
  route(async (req, res) => {
    await deleteCredential(ctxOf(res), realmOf(res), await userOf(req, res), String(req.params.credentialId));
    noContent(res);
  }),
);

userCredentialsRouter.post(
  '/credentials/:credentialId/moveToFirst',
  route(async (req, res) => {
    await moveCredential(ctxOf(res), realmOf(res), await userOf(req, res), String(req.params.credentialId), null);
    noContent(res);
  }),
);

userCredentialsRouter.post(
  '/credentials/:credentialId/moveAfter/:previousId',
  route(async (req, res) => {
    const { credentialId, previousId } = req.params as Record<string, string>;
    await moveCredential(ctxOf(res), realmOf(res), await userOf(req, res), credentialId, previousId);
    noContent(res);
  }),
);

userCredentialsRouter.put(
  '/credentials/:credentialId/userLabel',
  route(async (req, res) => {
    await setCredentialLabel(ctxOf(res), realmOf(res), await userOf(req, res), String(req.params.credentialId), textBody(req));
    noContent(res);
  }),
);

userCredentialsRouter.put(
  '/reset-password',
  route(async (req, res) => {
    const body = jsonBody<CredentialRep | null>(req, 'CredentialRepresentation', () => null);
    await resetPassword(ctxOf(res), realmOf(res), await userOf(req, res), body);
    noContent(res);
  }),
);

userCredentialsRouter.put(
  '/disable-credential-types',
  route(async (req, res) => {
    const types = parseJson(req);
    await disableCredentialTypes(ctxOf(res), realmOf(res), await userOf(req, res), types);
    noContent(res);
  }),
);

userCredentialsRouter.get(
  '/configured-user-storage-credential-types',
  route(async (req, res) => json(res, await configuredUserStorageCredentialTypes(ctxOf(res), realmOf(res), await userOf(req, res)))),
);
