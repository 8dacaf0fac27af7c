import { Router } from 'express';
import type { UserModel } from '../../src/db/models/user';
import { executeActionsEmail, sendVerifyEmail, type EmailParams } from '../../src/services/events/user-emails';
import { ctxOf, noContent, parseJson, qInt, qStr, realmOf, route } from '../http';
import { resolveUserParam } from '../users/users';

/** `/admin/realms/{realm}/users/{userId}/execute-actions-email` and `/send-verify-email` (reference §4.14). */
export const userEmailsRouter = Router({ mergeParams: true });

const userOf = (res: { locals: Record<string, unknown> }) => res.locals.user as UserModel;

const params = (req: Parameters<typeof qStr>[0]): EmailParams => ({
  clientId: qStr(req, 'client_id'),
  redirectUri: qStr(req, 'redirect_uri'),
  lifespan: qInt(req, 'lifespan'),
});

userEmailsRouter.put(
  '/users/:userId/execute-actions-email',
  resolveUserParam('userId'),
  route(async (req, res) => {
    await executeActionsEmail(ctxOf(res), realmOf(res), userOf(res), () => parseJson(req), params(req));
    noContent(res);
  }),
);

userEmailsRouter.put(
  '/users/:userId/send-verify-email',
  resolveUserParam('userId'),
  route(async (req, res) => {
    await sendVerifyEmail(ctxOf(res), realmOf(res), userOf(res), params(req));
    noContent(res);
  }),
);
