import { Router } from 'express';
import {
  removeImportedUsers,
  storageProviderName,
  syncMapper,
  syncStorage,
  unlinkUsers,
} from '../../src/services/user-storage/user-storage';
import { ctxOf, json, noContent, qStr, realmOf, route } from '../http';

/** `/admin/realms/{realm}/user-storage`: provider name, user sync, imported users, mapper data sync. */
export const userStorageRouter = Router({ mergeParams: true });

const p = (req: { params: Record<string, unknown> }, k: string) => String(req.params[k]);

userStorageRouter.get(
  '/:id/name',
  route(async (req, res) => json(res, await storageProviderName(ctxOf(res), realmOf(res), p(req, 'id')))),
);
userStorageRouter.post(
  '/:id/sync',
  route(async (req, res) => json(res, await syncStorage(ctxOf(res), realmOf(res), p(req, 'id'), qStr(req, 'action')))),
);
userStorageRouter.post(
  '/:id/remove-imported-users',
  route(async (req, res) => {
    await removeImportedUsers(ctxOf(res), realmOf(res), p(req, 'id'));
    noContent(res);
  }),
);
userStorageRouter.post(
  '/:id/unlink-users',
  route(async (req, res) => {
    await unlinkUsers(ctxOf(res), realmOf(res), p(req, 'id'));
    noContent(res);
  }),
);
userStorageRouter.post(
  '/:parentId/mappers/:id/sync',
  route(async (req, res) =>
    json(res, await syncMapper(ctxOf(res), realmOf(res), p(req, 'parentId'), p(req, 'id'), qStr(req, 'direction'))),
  ),
);
