import { Router } from 'express';
import { executeActionsEmail, resetPasswordEmail, sendVerifyEmail, type EmailParams } from '../../src/services/events/user-emails';
import { ctxOf, noContent, parseJson, qInt, qStr, realmOf, route } from '../http';
import { userOf } from '../parents';

/** `/admin/realms/{realm}/users/{userId}/execute-actions-email`, `/send-verify-email` and `/reset-password-email` (reference §4.14). */
export const userEmailsRouter = Router({ mergeParams: true });

const params = (req: Parameters<typeof qStr>[0]): EmailParams => ({
  clientId: qStr(req, 'client_id'),
  redirectUri: qStr(req, 'redirect_uri'),
  lifespan: qInt(req, 'lifespan'),
});

userEmailsRouter.put(
  '/users/:userId/execute-actions-email',
  route(async (req, res) => {
    const user = await userOf(req, res);
    await executeActionsEmail(ctxOf(res), realmOf(res), user, () => parseJson(req), params(req));
    noContent(res);
  }),
);

userEmailsRouter.put(
  '/users/:userId/send-verify-email',
  route(async (req, res) => {
    const user = await userOf(req, res);
    await sendVerifyEmail(ctxOf(res), realmOf(res), user, params(req));
    noContent(res);
  }),
);

userEmailsRouter.put(
  '/users/:userId/reset-password-email',
  route(async (req, res) => {
    const user = await userOf(req, res);
    await resetPasswordEmail(ctxOf(res), realmOf(res), user, params(req));
    noContent(res);
  }),
);
