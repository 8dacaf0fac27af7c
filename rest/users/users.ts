import { type Request, Router } from 'express';
import { getUserProfile, updateUserProfile } from '../../src/services/users/user-profile';
import { createUser, deleteUser, getUser, updateUser } from '../../src/services/users/users';
import { countUsers, listUsers, type UserQuery } from '../../src/services/users/users-search';
import { created, ctxOf, json, jsonBody, middleware, noContent, parseJson, qBool, qInt, qStr, realmOf, route } from '../http';
import { userOf } from '../parents';

/** `/admin/realms/{realm}/users`: collection, count, user profile, and one user. */
export const usersRouter = Router({ mergeParams: true });

function userQuery(req: Request, names: Array<keyof UserQuery>): UserQuery {
  const p: UserQuery = {};
  const bools = new Set(['emailVerified', 'enabled', 'exact', 'briefRepresentation']);
  const ints = new Set(['first', 'max']);
  for (const n of names) {
    const v = bools.has(n) ? qBool(req, n) : ints.has(n) ? qInt(req, n) : qStr(req, n);
    if (v !== undefined) (p as Record<string, unknown>)[n] = v;
  }
  return p;
}

const COUNT_PARAMS: Array<keyof UserQuery> = ['search', 'username', 'email', 'firstName', 'lastName', 'emailVerified', 'enabled', 'q'];
const LIST_PARAMS: Array<keyof UserQuery> = [...COUNT_PARAMS, 'idpAlias', 'idpUserId', 'exact', 'first', 'max', 'briefRepresentation'];

usersRouter.get(
  '/',
  route(async (req, res) => json(res, await listUsers(ctxOf(res), realmOf(res), userQuery(req, LIST_PARAMS)))),
);

usersRouter.post(
  '/',
  route(async (req, res) => {
    const id = await createUser(ctxOf(res), realmOf(res), jsonBody(req, 'UserRepresentation'));
    created(req, res, id);
  }),
);

usersRouter.get(
  '/count',
  route(async (req, res) => json(res, await countUsers(ctxOf(res), realmOf(res), userQuery(req, COUNT_PARAMS)))),
);

usersRouter.get(
  '/profile',
  route(async (_req, res) => json(res, await getUserProfile(ctxOf(res), realmOf(res)))),
);

usersRouter.put(
  '/profile',
  route(async (req, res) => json(res, await updateUserProfile(ctxOf(res), realmOf(res), parseJson(req)))),
);

/**
 * Resolves `{id}` before any handler (404 `User not found` or 403), once per request (rest/parents.ts);
 * also kept in `res.locals.user` for the routers that read it there.
 */
export const resolveUserParam = (param = 'id') =>
  middleware(async (req, res) => {
    res.locals.user = await userOf(req, res, param);
  });

usersRouter.use('/:id', resolveUserParam());

usersRouter.get(
  '/:id',
  route(async (req, res) => json(res, await getUser(ctxOf(res), realmOf(res), await userOf(req, res, 'id')))),
);

usersRouter.put(
  '/:id',
  route(async (req, res) => {
    await updateUser(ctxOf(res), realmOf(res), await userOf(req, res, 'id'), jsonBody(req, 'UserRepresentation'));
    noContent(res);
  }),
);

usersRouter.delete(
  '/:id',
  route(async (req, res) => {
    await deleteUser(ctxOf(res), realmOf(res), await userOf(req, res, 'id'));
    noContent(res);
  }),
);
