import { type Request, type Response, Router } from 'express';
import type { ScopeOwnerType } from '../../src/services/client-scopes/scope-owner';
import {
  addMappers,
  createMapper,
  deleteMapper,
  getMapper,
  listMappers,
  listMappersByProtocol,
  updateMapper,
  type ProtocolMapperInput,
} from '../../src/services/client-scopes/protocol-mappers';
import { arrayBody, created, ctxOf, json, jsonBody, noContent, realmOf, route } from '../http';

/**
 * `/{clients|client-scopes}/:ownerId/protocol-mappers/...` — one router factory, mounted once per
 * owner type (the seed's `{scopeOwner}` family).
 */
export function protocolMappersRouter(type: ScopeOwnerType): Router {
  const r = Router({ mergeParams: true });
  const args = (req: Request, res: Response) => [ctxOf(res), realmOf(res), type, req.params.ownerId as string] as const;
  const REP = 'ProtocolMapperRepresentation';

  r.post(
    '/add-models',
    route(async (req, res) => {
      await addMappers(...args(req, res), arrayBody<ProtocolMapperInput>(req, REP) ?? []);
      noContent(res);
    }),
  );
  r.get(
    '/models',
    route(async (req, res) => json(res, await listMappers(...args(req, res)))),
  );
  r.post(
    '/models',
    route(async (req, res) => created(req, res, await createMapper(...args(req, res), jsonBody<ProtocolMapperInput>(req, REP)))),
  );
  r.get(
    '/models/:mapperId',
    route(async (req, res) => json(res, await getMapper(...args(req, res), req.params.mapperId as string))),
  );
  r.put(
    '/models/:mapperId',
    route(async (req, res) => {
      await updateMapper(...args(req, res), req.params.mapperId as string, jsonBody<ProtocolMapperInput>(req, REP));
      noContent(res);
    }),
  );
  r.delete(
    '/models/:mapperId',
    route(async (req, res) => {
      await deleteMapper(...args(req, res), req.params.mapperId as string);
      noContent(res);
    }),
  );
  r.get(
    '/protocol/:protocol',
    route(async (req, res) => json(res, await listMappersByProtocol(...args(req, res), req.params.protocol as string))),
  );
  return r;
}
