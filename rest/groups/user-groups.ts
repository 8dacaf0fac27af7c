import { Router } from 'express';
import { countUserGroups, joinGroup, leaveGroup, listUserGroups } from '../../src/services/groups/group-membership';
import { ctxOf, json, noContent, qBool, qInt, qStr, realmOf, route } from '../http';

/** `/admin/realms/{realm}/users/{userId}/groups...` (group membership of a user). */
export const userGroupsRouter = Router({ mergeParams: true });

const userIdOf = (params: Record<string, unknown>) => String(params.userId);

userGroupsRouter.get(
  '/',
  route(async (req, res) =>
    json(
      res,
      await listUserGroups(ctxOf(res), realmOf(res), userIdOf(req.params), {
        search: qStr(req, 'search'),
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
        briefRepresentation: qBool(req, 'briefRepresentation'),
      }),
    ),
  ),
);

userGroupsRouter.get(
  '/count',
  route(async (req, res) => json(res, await countUserGroups(ctxOf(res), realmOf(res), userIdOf(req.params), qStr(req, 'search')))),
);

userGroupsRouter.put(
  '/:groupId',
  route(async (req, res) => {
    await joinGroup(ctxOf(res), realmOf(res), userIdOf(req.params), req.params.groupId as string);
    noContent(res);
  }),
);

userGroupsRouter.delete(
  '/:groupId',
  route(async (req, res) => {
    await leaveGroup(ctxOf(res), realmOf(res), userIdOf(req.params), req.params.groupId as string);
    noContent(res);
  }),
);
