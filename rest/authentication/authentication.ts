import { Router, type Request, type Response } from 'express';
import type { AuthExecutionModel, AuthFlowModel } from '../../src/db/models/authentication';
import type { HttpError } from '../../src/core/errors';
import { cannotParse } from '../../src/core/errors';
import {
  type ConfigInput,
  createExecutionConfig,
  deleteAuthenticatorConfig,
  getAuthenticatorConfig,
  getConfigDescription,
  getPerClientConfigDescription,
  listProviders,
  updateAuthenticatorConfig,
} from '../../src/services/authentication/configs';
import {
  addExecution,
  addExecutionToFlow,
  addSubFlow,
  deleteExecution,
  executionParentNotFound,
  executionsFlowNotFound,
  getExecution,
  listExecutions,
  moveExecution,
  subFlowParentNotFound,
  updateExecution,
} from '../../src/services/authentication/executions';
import {
  type FlowInput,
  copyFlow,
  createFlow,
  deleteFlow,
  flowNotFound,
  flowWithIdNotFound,
  getFlow,
  listFlows,
  updateFlow,
} from '../../src/services/authentication/flows';
import { type AuthRight, resolveExecution, resolveFlow, stringMap } from '../../src/services/authentication/common';
import { created, ctxOf, json, jsonBody, noContent, once, parseJson, realmOf, requestPath, route } from '../http';

/** `/{realm}/authentication`: flows, executions, authenticator configs and provider lists (config reference §9.2–§9.7). */
export const authenticationRouter = Router({ mergeParams: true });
const r = authenticationRouter;
const p = (req: Request, name: string) => req.params[name] as string;

/** The flow of `/flows/{id}`, resolved once per request: 403 without the right, then the endpoint's 404. */
const flowOf = (req: Request, res: Response, right: AuthRight, notFound: () => HttpError): Promise<AuthFlowModel> =>
  once(res, `flow:${p(req, 'id')}`, () => resolveFlow(ctxOf(res), realmOf(res), { id: p(req, 'id') }, right, notFound));

/** The flow of `/flows/{alias}/...`, resolved once per request: 403 without the right, then the endpoint's error. */
const flowByAliasOf = (req: Request, res: Response, right: AuthRight, notFound: () => HttpError): Promise<AuthFlowModel> =>
  once(res, `flow-alias:${p(req, 'alias')}`, () => resolveFlow(ctxOf(res), realmOf(res), { alias: p(req, 'alias') }, right, notFound));

/** The execution of `/executions/{id}`, resolved once per request: 403 without manage-realm, then 404 `Illegal execution`. */
const executionOf = (req: Request, res: Response): Promise<AuthExecutionModel> =>
  once(res, `execution:${p(req, 'id')}`, () => resolveExecution(ctxOf(res), realmOf(res), p(req, 'id')));

/** A `Map<String,String>` body: `{}` when empty; anything but an object → 400. */
export function mapBody(req: Request): Record<string, string> {
  const body = parseJson(req);
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
  return stringMap(body);
}

for (const list of ['authenticator', 'client-authenticator', 'form', 'form-action'] as const) {
  r.get(
    `/${list}-providers`,
    route(async (_req, res) => json(res, await listProviders(ctxOf(res), realmOf(res), list))),
  );
}
r.get(
  '/config-description/:providerId',
  route(async (req, res) => json(res, await getConfigDescription(ctxOf(res), realmOf(res), p(req, 'providerId')))),
);
r.get(
  '/per-client-config-description',
  route(async (_req, res) => json(res, await getPerClientConfigDescription(ctxOf(res), realmOf(res)))),
);

const CONFIG = 'AuthenticatorConfigRepresentation';
r.get(
  '/config/:id',
  route(async (req, res) => json(res, await getAuthenticatorConfig(ctxOf(res), realmOf(res), p(req, 'id')))),
);
r.put(
  '/config/:id',
  route(async (req, res) => {
    await updateAuthenticatorConfig(ctxOf(res), realmOf(res), p(req, 'id'), jsonBody<ConfigInput>(req, CONFIG));
    noContent(res);
  }),
);
r.delete(
  '/config/:id',
  route(async (req, res) => {
    await deleteAuthenticatorConfig(ctxOf(res), realmOf(res), p(req, 'id'));
    noContent(res);
  }),
);

r.post(
  '/executions',
  route(async (req, res) =>
    created(req, res, await addExecution(ctxOf(res), realmOf(res), jsonBody(req, 'AuthenticationExecutionRepresentation'))),
  ),
);
r.get(
  '/executions/:id',
  route(async (req, res) => json(res, getExecution(await executionOf(req, res)))),
);
r.delete(
  '/executions/:id',
  route(async (req, res) => {
    await deleteExecution(ctxOf(res), realmOf(res), await executionOf(req, res), p(req, 'id'));
    noContent(res);
  }),
);
r.post(
  '/executions/:id/config',
  route(async (req, res) =>
    created(req, res, await createExecutionConfig(ctxOf(res), realmOf(res), p(req, 'id'), jsonBody<ConfigInput>(req, CONFIG))),
  ),
);
r.get(
  '/executions/:id/config/:configId',
  route(async (req, res) => json(res, await getAuthenticatorConfig(ctxOf(res), realmOf(res), p(req, 'configId')))),
);
for (const direction of ['raise', 'lower'] as const) {
  r.post(
    `/executions/:id/${direction}-priority`,
    route(async (req, res) => {
      await moveExecution(ctxOf(res), realmOf(res), await executionOf(req, res), direction, p(req, 'id'));
      noContent(res);
    }),
  );
}

const FLOW = 'AuthenticationFlowRepresentation';
r.get(
  '/flows',
  route(async (_req, res) => json(res, await listFlows(ctxOf(res), realmOf(res)))),
);
r.post(
  '/flows',
  route(async (req, res) => created(req, res, await createFlow(ctxOf(res), realmOf(res), jsonBody<FlowInput>(req, FLOW)))),
);
r.post(
  '/flows/:alias/copy',
  route(async (req, res) => created(req, res, await copyFlow(ctxOf(res), realmOf(res), p(req, 'alias'), mapBody(req)))),
);
r.get(
  '/flows/:alias/executions',
  route(async (req, res) => json(res, await listExecutions(ctxOf(res), realmOf(res), p(req, 'alias')))),
);
r.put(
  '/flows/:alias/executions',
  route(async (req, res) => {
    const body = jsonBody(req, 'AuthenticationExecutionInfoRepresentation');
    const flow = await flowByAliasOf(req, res, 'manage', executionsFlowNotFound);
    await updateExecution(ctxOf(res), realmOf(res), flow, body, p(req, 'alias'));
    noContent(res);
  }),
);
r.post(
  '/flows/:alias/executions/execution',
  route(async (req, res) => {
    const body = mapBody(req);
    const parent = await flowByAliasOf(req, res, 'manage', executionParentNotFound);
    const id = await addExecutionToFlow(ctxOf(res), realmOf(res), parent, body, p(req, 'alias'));
    created(req, res, id, requestPath(req).replace(/\/flows\/[^/]+\/executions\/execution$/, '/executions'));
  }),
);
r.post(
  '/flows/:alias/executions/flow',
  route(async (req, res) => {
    const body = mapBody(req);
    const parent = await flowByAliasOf(req, res, 'manage', subFlowParentNotFound);
    const id = await addSubFlow(ctxOf(res), realmOf(res), parent, body, p(req, 'alias'));
    created(req, res, id, requestPath(req).replace(/\/flows\/[^/]+\/executions\/flow$/, '/flows'));
  }),
);
r.get(
  '/flows/:id',
  route(async (req, res) => json(res, await getFlow(ctxOf(res), realmOf(res), await flowOf(req, res, 'view', flowWithIdNotFound)))),
);
r.put(
  '/flows/:id',
  route(async (req, res) => {
    const body = jsonBody<FlowInput>(req, FLOW);
    const flow = await flowOf(req, res, 'manage', flowWithIdNotFound);
    json(res, await updateFlow(ctxOf(res), realmOf(res), flow, body, p(req, 'id')));
  }),
);
r.delete(
  '/flows/:id',
  route(async (req, res) => {
    await deleteFlow(ctxOf(res), realmOf(res), await flowOf(req, res, 'manage', flowNotFound), p(req, 'id'));
    noContent(res);
  }),
);
