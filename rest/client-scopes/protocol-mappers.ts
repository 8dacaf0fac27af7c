import { Router } from 'express';
import type { ProtocolMapperRepresentation } from '../../src/representations/protocol-mapper';
import type { ScopeOwnerType } from '../../src/services/client-scopes/scope-owner';
import {
  addMappers,
  createMapper,
  deleteMapper,
  getMapper,
  listMappers,
  listMappersByProtocol,
  updateMapper,
} from '../../src/services/client-scopes/protocol-mappers';
import { arrayBody, created, ctxOf, json, jsonBody, noContent, realmOf, route } from '../http';
import { scopeOwnerOf } from './scope-owner';

/**
 * `/{clients|client-scopes}/:ownerId/protocol-mappers/...` — one router factory, mounted once per
 * owner type (the seed's `{scopeOwner}` family). A body is read before the owner is resolved.
 */
export function protocolMappersRouter(type: ScopeOwnerType): Router {
  const r = Router({ mergeParams: true });
  const REP = 'ProtocolMapperRepresentation';

  r.post(
    '/add-models',
    route(async (req, res) => {
      const reps = arrayBody<ProtocolMapperRepresentation>(req, REP) ?? [];
      await addMappers(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), reps);
      noContent(res);
    }),
  );
  r.get(
    '/models',
    route(async (req, res) => json(res, await listMappers(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type)))),
  );
  r.post(
    '/models',
    route(async (req, res) => {
      const rep = jsonBody<ProtocolMapperRepresentation>(req, REP);
      created(req, res, await createMapper(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), rep));
    }),
  );
  r.get(
    '/models/:mapperId',
    route(async (req, res) =>
      json(res, await getMapper(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), req.params.mapperId as string)),
    ),
  );
  r.put(
    '/models/:mapperId',
    route(async (req, res) => {
      const rep = jsonBody<ProtocolMapperRepresentation>(req, REP);
      await updateMapper(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), req.params.mapperId as string, rep);
      noContent(res);
    }),
  );
  r.delete(
    '/models/:mapperId',
    route(async (req, res) => {
      await deleteMapper(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), req.params.mapperId as string);
      noContent(res);
    }),
  );
  r.get(
    '/protocol/:protocol',
    route(async (req, res) =>
      json(res, await listMappersByProtocol(ctxOf(res), realmOf(res), await scopeOwnerOf(req, res, type), req.params.protocol as string)),
    ),
  );
  return r;
}
