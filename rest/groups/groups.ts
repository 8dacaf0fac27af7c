import { Router } from 'express';
import { addDefaultGroup, listDefaultGroups, listMembers, removeDefaultGroup } from '../../src/services/groups/group-membership';
import { countGroups, getGroup, getGroupByPath, listChildren, listGroups } from '../../src/services/groups/group-queries';
import { addSubGroup, createTopLevelGroup, removeGroup, updateGroup } from '../../src/services/groups/groups';
import { groupManagementPermissions } from '../../src/services/authz/management-permissions';
import { managementPermissionRoutes } from '../authz/management-permissions';
import { created, ctxOf, failed, json, jsonBody, noContent, qBool, qInt, qStr, realmOf, route } from '../http';
import { groupOf } from './parent';

/** `/admin/realms/{realm}/groups`, `group-by-path`, `default-groups`. */
export const groupsRouter = Router({ mergeParams: true });
export const groupByPathRouter = Router({ mergeParams: true });
export const defaultGroupsRouter = Router({ mergeParams: true });

groupsRouter.get(
  '/',
  route(async (req, res) =>
    json(
      res,
      await listGroups(ctxOf(res), realmOf(res), {
        search: qStr(req, 'search'),
        q: qStr(req, 'q'),
        exact: qBool(req, 'exact'),
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
        briefRepresentation: qBool(req, 'briefRepresentation'),
        populateHierarchy: qBool(req, 'populateHierarchy'),
        subGroupsCount: qBool(req, 'subGroupsCount'),
      }),
    ),
  ),
);

groupsRouter.get(
  '/count',
  route(async (req, res) =>
    json(res, await countGroups(ctxOf(res), realmOf(res), { search: qStr(req, 'search'), top: qBool(req, 'top') })),
  ),
);

groupsRouter.post(
  '/',
  route(async (req, res) => {
    const result = await createTopLevelGroup(ctxOf(res), realmOf(res), jsonBody(req, 'GroupRepresentation'));
    if (result.created) created(req, res, result.id);
    else noContent(res);
  }),
);

// The group is resolved before anything else: unknown id → 404 `Could not find group by id`.
groupsRouter.param('id', (req, res, next) => {
  groupOf(req, res).then(
    () => next(),
    (e) => failed(req, res, next, e),
  );
});

groupsRouter.get(
  '/:id',
  route(async (req, res) => json(res, await getGroup(ctxOf(res), realmOf(res), await groupOf(req, res)))),
);

groupsRouter.put(
  '/:id',
  route(async (req, res) => {
    await updateGroup(ctxOf(res), realmOf(res), await groupOf(req, res), jsonBody(req, 'GroupRepresentation'));
    noContent(res);
  }),
);

groupsRouter.delete(
  '/:id',
  route(async (req, res) => {
    await removeGroup(ctxOf(res), realmOf(res), await groupOf(req, res));
    noContent(res);
  }),
);

groupsRouter.get(
  '/:id/children',
  route(async (req, res) =>
    json(
      res,
      await listChildren(ctxOf(res), realmOf(res), await groupOf(req, res), {
        search: qStr(req, 'search'),
        exact: qBool(req, 'exact'),
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
        briefRepresentation: qBool(req, 'briefRepresentation'),
        subGroupsCount: qBool(req, 'subGroupsCount'),
      }),
    ),
  ),
);

groupsRouter.post(
  '/:id/children',
  route(async (req, res) => {
    const result = await addSubGroup(ctxOf(res), realmOf(res), await groupOf(req, res), jsonBody(req, 'GroupRepresentation'));
    if (!result.created) return noContent(res);
    // Location names the child under /groups, not under /children.
    res
      .status(201)
      .location(`${ctxOf(res).baseUrl}${req.baseUrl}/${encodeURIComponent(result.id)}`)
      .json(result.representation);
  }),
);

groupsRouter.get(
  '/:id/members',
  route(async (req, res) =>
    json(
      res,
      await listMembers(ctxOf(res), realmOf(res), await groupOf(req, res), {
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
        briefRepresentation: qBool(req, 'briefRepresentation'),
      }),
    ),
  ),
);

managementPermissionRoutes(groupsRouter, '/:id/management/permissions', async (req, res, body) =>
  groupManagementPermissions(ctxOf(res), realmOf(res), await groupOf(req, res), body),
);

/** `group-by-path/{path}`: the rest of the URL path, raw slashes separating the names. */
groupByPathRouter.get(
  /.*/,
  route(async (req, res) => {
    // The path parameter is everything after `group-by-path/`, so `group-by-path//a/b` means `/a/b`.
    let path = req.path.slice(1);
    try {
      path = decodeURIComponent(path);
    } catch {
      // Undecodable: looked up as written, which finds nothing.
    }
    json(res, await getGroupByPath(ctxOf(res), realmOf(res), path));
  }),
);

defaultGroupsRouter.get(
  '/',
  route(async (_req, res) => json(res, await listDefaultGroups(ctxOf(res), realmOf(res)))),
);

defaultGroupsRouter.put(
  '/:groupId',
  route(async (req, res) => {
    await addDefaultGroup(ctxOf(res), realmOf(res), req.params.groupId as string);
    noContent(res);
  }),
);

defaultGroupsRouter.delete(
  '/:groupId',
  route(async (req, res) => {
    await removeDefaultGroup(ctxOf(res), realmOf(res), req.params.groupId as string);
    noContent(res);
  }),
);
