import { Router } from 'express';
import { createRealm } from '../../src/services/import-export/create-realm';
import { deleteRealm, getRealm, listRealms, updateRealm } from '../../src/services/realms/realms';
import { cannotParse, errorA } from '../../src/core/errors';
import type { RealmRepresentation } from '../../src/representations/realm';
import { representationError } from '../../src/representations/schema';
import { readRealmRepresentation } from '../../src/services/realms/realm-settings';
import { created, ctxOf, json, noContent, parseJson, qBool, realmOf, rawBody, route } from '../http';

/** `/admin/realms` collection: list and import. */
export const realmsCollection = Router();

realmsCollection.get(
  '/',
  route(async (req, res) => json(res, await listRealms(ctxOf(res), { brief: qBool(req, 'briefRepresentation') }))),
);

realmsCollection.post(
  '/',
  route(async (req, res) => {
    let body: unknown;
    try {
      body = rawBody(req).trim() ? JSON.parse(rawBody(req)) : undefined;
    } catch {
      throw errorA(400, 'unable to read contents from stream');
    }
    const realm = await createRealm(ctxOf(res), body);
    created(req, res, realm.name);
  }),
);

/** `/admin/realms/{realm}` itself. */
export const realmRouter = Router({ mergeParams: true });

realmRouter.get(
  '/',
  route(async (_req, res) => json(res, await getRealm(ctxOf(res), realmOf(res)))),
);

realmRouter.put(
  '/',
  route(async (req, res) => {
    const body = parseJson(req);
    if (body === undefined || body === null) throw errorA(400, 'unable to read contents from stream');
    // Keycloak's JAX-RS layer reads the body before the method runs: its 400s come before any 403.
    if (typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
    readRealmRepresentation(body as RealmRepresentation, (problem) => representationError(problem, rawBody(req)));
    await updateRealm(ctxOf(res), realmOf(res), body as RealmRepresentation);
    noContent(res);
  }),
);

realmRouter.delete(
  '/',
  route(async (_req, res) => {
    await deleteRealm(ctxOf(res), realmOf(res));
    noContent(res);
  }),
);
