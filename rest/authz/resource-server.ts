import { Router } from 'express';
import { exportSettings, getResourceServer, importSettings, updateResourceServer } from '../../src/services/authz/resource-server';
import { ctxOf, json, noContent, parseJson, route } from '../http';
import { evaluateRouter } from './evaluate';
import { targetOf } from './parent';
import { policyRouter, permissionRouter } from './policies';
import { resourceRouter } from './resources';
import { scopeRouter } from './scopes';

/**
 * `/admin/realms/{realm}/clients/{clientUuid}/authz/resource-server`: the resource server's settings,
 * export and import, and its resources, scopes, policies and permissions (authorization services).
 */
export const resourceServerRouter = Router({ mergeParams: true });

resourceServerRouter.get(
  '/',
  route(async (req, res) => json(res, await getResourceServer(ctxOf(res), await targetOf(req, res)))),
);
resourceServerRouter.put(
  '/',
  route(async (req, res) => {
    const body = parseJson(req);
    await updateResourceServer(ctxOf(res), await targetOf(req, res), body);
    noContent(res);
  }),
);
resourceServerRouter.get(
  '/settings',
  route(async (req, res) => json(res, await exportSettings(ctxOf(res), await targetOf(req, res)))),
);
resourceServerRouter.post(
  '/import',
  route(async (req, res) => {
    const body = parseJson(req);
    await importSettings(ctxOf(res), await targetOf(req, res), body);
    noContent(res);
  }),
);
resourceServerRouter.use('/resource', resourceRouter);
resourceServerRouter.use('/scope', scopeRouter);
resourceServerRouter.use('/policy/evaluate', evaluateRouter);
resourceServerRouter.use('/policy', policyRouter);
resourceServerRouter.use('/permission', permissionRouter);
