import { Router } from 'express';
import { impersonate } from '../../src/services/users/impersonation';
import { getUnmanagedAttributes, getUserProfileMetadata } from '../../src/services/users/user-profile-metadata';
import { ctxOf, json, realmOf, route } from '../http';
import { userOf } from '../parents';

/**
 * Mounted at `/admin/realms/{realm}/users`: `POST /{userId}/impersonation`, plus the user-profile
 * views `GET /profile/metadata` and `GET /{userId}/unmanagedAttributes`.
 */
export const userImpersonationRouter = Router({ mergeParams: true });

userImpersonationRouter.get(
  '/profile/metadata',
  route(async (_req, res) => json(res, await getUserProfileMetadata(ctxOf(res), realmOf(res)))),
);

userImpersonationRouter.get(
  '/:userId/unmanagedAttributes',
  route(async (req, res) => json(res, await getUnmanagedAttributes(ctxOf(res), realmOf(res), await userOf(req, res)))),
);

userImpersonationRouter.post(
  '/:userId/impersonation',
  route(async (req, res) => {
    const ctx = ctxOf(res);
    const realm = realmOf(res);
    const { redirect, sameRealm, sessionId } = await impersonate(ctx, realm, await userOf(req, res));
    const path = `/realms/${encodeURIComponent(realm.name)}/`;
    res.cookie('KEYCLOAK_SESSION', `${realm.name}/${req.params.userId}/${sessionId}`, { path, sameSite: 'none', secure: true });
    res.set('Cache-Control', 'no-cache');
    json(res, { redirect, sameRealm });
  }),
);
