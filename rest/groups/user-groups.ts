import { Router } from 'express';
import { countUserGroups, joinGroup, leaveGroup, listUserGroups } from '../../src/services/groups/group-membership';
import { ctxOf, json, noContent, qBool, qInt, qStr, realmOf, route } from '../http';
import { userOf } from '../parents';

/** `/admin/realms/{realm}/users/{userId}/groups...` (group membership of a user). */
export const userGroupsRouter = Router({ mergeParams: true });

userGroupsRouter.get(
  '/',
  route(async (req, res) => {
    const query = {
      search: qStr(req, 'search'),
      first: qInt(req, 'first'),
      max: qInt(req, 'max'),
      briefRepresentation: qBool(req, 'briefRepresentation'),
    };
    json(res, await listUserGroups(ctxOf(res), realmOf(res), await userOf(req, res), query));
  }),
);

userGroupsRouter.get(
  '/count',
  route(async (req, res) => json(res, await countUserGroups(ctxOf(res), realmOf(res), await userOf(req, res), qStr(req, 'search')))),
);

userGroupsRouter.put(
  '/:groupId',
  route(async (req, res) => {
    await joinGroup(ctxOf(res), realmOf(res), await userOf(req, res), req.params.groupId as string);
    noContent(res);
  }),
);

userGroupsRouter.delete(
  '/:groupId',
  route(async (req, res) => {
    await leaveGroup(ctxOf(res), realmOf(res), await userOf(req, res), req.params.groupId as string);
    noContent(res);
  }),
);
