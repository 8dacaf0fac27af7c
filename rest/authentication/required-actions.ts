import { Router, type Request } from 'express';
import {
  type RequiredActionInput,
  deleteRequiredAction,
  deleteRequiredActionConfig,
  getRequiredAction,
  getRequiredActionConfig,
  getRequiredActionConfigDescription,
  listRequiredActions,
  listUnregisteredRequiredActions,
  moveRequiredAction,
  registerRequiredAction,
  updateRequiredAction,
  updateRequiredActionConfig,
} from '../../src/services/authentication/required-actions';
import { mapBody } from './authentication';
import { ctxOf, json, jsonBody, noContent, parseJson, realmOf, route } from '../http';

/** `/{realm}/authentication`: required actions (config reference §9.9). */
export const requiredActionsRouter = Router({ mergeParams: true });
const r = requiredActionsRouter;
const alias = (req: Request) => req.params.alias as string;

r.get(
  '/required-actions',
  route(async (_req, res) => json(res, await listRequiredActions(ctxOf(res), realmOf(res)))),
);
r.get(
  '/unregistered-required-actions',
  route(async (_req, res) => json(res, await listUnregisteredRequiredActions(ctxOf(res), realmOf(res)))),
);
r.post(
  '/register-required-action',
  route(async (req, res) => {
    await registerRequiredAction(ctxOf(res), realmOf(res), mapBody(req));
    noContent(res);
  }),
);
r.get(
  '/required-actions/:alias',
  route(async (req, res) => json(res, await getRequiredAction(ctxOf(res), realmOf(res), alias(req)))),
);
r.put(
  '/required-actions/:alias',
  route(async (req, res) => {
    await updateRequiredAction(
      ctxOf(res),
      realmOf(res),
      alias(req),
      jsonBody<RequiredActionInput>(req, 'RequiredActionProviderRepresentation'),
    );
    noContent(res);
  }),
);
r.delete(
  '/required-actions/:alias',
  route(async (req, res) => {
    await deleteRequiredAction(ctxOf(res), realmOf(res), alias(req));
    noContent(res);
  }),
);
for (const direction of ['raise', 'lower'] as const) {
  r.post(
    `/required-actions/:alias/${direction}-priority`,
    route(async (req, res) => {
      await moveRequiredAction(ctxOf(res), realmOf(res), alias(req), direction);
      noContent(res);
    }),
  );
}
r.get(
  '/required-actions/:alias/config-description',
  route(async (req, res) => json(res, await getRequiredActionConfigDescription(ctxOf(res), realmOf(res), alias(req)))),
);
r.get(
  '/required-actions/:alias/config',
  route(async (req, res) => json(res, await getRequiredActionConfig(ctxOf(res), realmOf(res), alias(req)))),
);
r.put(
  '/required-actions/:alias/config',
  route(async (req, res) => {
    const body = parseJson(req);
    await updateRequiredActionConfig(
      ctxOf(res),
      realmOf(res),
      alias(req),
      (body && typeof body === 'object' ? body : {}) as Record<string, unknown>,
    );
    noContent(res);
  }),
);
r.delete(
  '/required-actions/:alias/config',
  route(async (req, res) => {
    await deleteRequiredActionConfig(ctxOf(res), realmOf(res), alias(req));
    noContent(res);
  }),
);
