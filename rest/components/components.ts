import { Router } from 'express';
import {
  createComponent,
  deleteComponent,
  getComponent,
  listComponents,
  subComponentTypes,
  updateComponent,
} from '../../src/services/components/components';
import { parseComponentInput } from '../../src/services/components/input';
import { created, ctxOf, json, noContent, qStr, rawBody, realmOf, requiredJson, route } from '../http';

/** `/admin/realms/{realm}/components`: component CRUD and sub-component types (config reference §6). */
export const componentsRouter = Router({ mergeParams: true });

const body = (req: Parameters<typeof rawBody>[0]) => parseComponentInput(requiredJson(req), rawBody(req));
const id = (req: { params: Record<string, unknown> }) => String(req.params.id);

componentsRouter.get(
  '/',
  route(async (req, res) =>
    json(
      res,
      await listComponents(ctxOf(res), realmOf(res), {
        parent: qStr(req, 'parent'),
        type: qStr(req, 'type'),
        name: qStr(req, 'name'),
        providerId: qStr(req, 'providerId'),
      }),
    ),
  ),
);
componentsRouter.post(
  '/',
  route(async (req, res) => created(req, res, await createComponent(ctxOf(res), realmOf(res), body(req)))),
);
componentsRouter.get(
  '/:id',
  route(async (req, res) => json(res, await getComponent(ctxOf(res), realmOf(res), id(req)))),
);
componentsRouter.put(
  '/:id',
  route(async (req, res) => {
    await updateComponent(ctxOf(res), realmOf(res), id(req), body(req));
    noContent(res);
  }),
);
componentsRouter.delete(
  '/:id',
  route(async (req, res) => {
    await deleteComponent(ctxOf(res), realmOf(res), id(req));
    noContent(res);
  }),
);
componentsRouter.get(
  '/:id/sub-component-types',
  route(async (req, res) => json(res, await subComponentTypes(ctxOf(res), realmOf(res), id(req), qStr(req, 'type')))),
);
