import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { requireManageGroup } from '../../auth/fgap';
import { requireCap } from '../../auth/permissions';
import { dropManagementPermissions, groupSpec } from '../authz/admin-permissions';
import { TOP_LEVEL, type GroupModel } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import { badRequest, cannotParse, conflict, notFound } from '../../core/errors';
import { write } from '../../core/db-errors';
import { invalidate } from '../../loaders/invalidate';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { ancestorIds, subtreeIds } from './group-paths';
import { findGroup, groupRepresentations } from './group-queries';
import type { GroupRep } from '../../representations/group';

/**
 * Write side of groups (reference §5.4–5.6): create top-level and child groups, move groups,
 * update, delete with the whole subtree. Sibling-name uniqueness comes from the unique index
 * (realm_id, parent_id, name); top-level groups carry parent_id TOP_LEVEL so the index covers them.
 */

const MAX_LEN = 255;

/**
 * A GroupRepresentation body before its values are checked: Keycloak's field names, values of any
 * type (realm import hands over parsed JSON; {@link groupInput} rejects what Jackson would).
 */
export type GroupBody = { [K in keyof GroupRep]?: unknown };

export interface GroupInput {
  name: string;
  description: string | null;
  /** undefined: leave attributes as they are (PUT without `attributes`). */
  attributes?: Record<string, string[]>;
}

/** Attribute map as Keycloak reads it (`Map<String, List<String>>`); other shapes are 400. */
function attributesOf(raw: unknown): Record<string, string[]> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw cannotParse('mapping');
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === null) continue;
    if (!Array.isArray(v)) throw cannotParse('mapping');
    const values: string[] = [];
    for (const item of v) {
      if (item === null) continue;
      if (typeof item === 'object') throw cannotParse('mapping');
      values.push(String(item));
    }
    if (values.length) out[k] = values;
  }
  return out;
}

/** Validates the writable fields of a GroupRepresentation: name required, lengths bounded by the columns. */
export function groupInput(rep: GroupBody): GroupInput {
  const name = typeof rep.name === 'string' ? rep.name : '';
  if (!name.trim()) throw badRequest('Group name is missing');
  if ([...name].length > MAX_LEN) throw badRequest(`Group name exceeds ${MAX_LEN} characters`);
  const description = typeof rep.description === 'string' ? rep.description : null;
  if (description !== null && [...description].length > MAX_LEN) throw badRequest(`Group description exceeds ${MAX_LEN} characters`);
  return { name, description, attributes: attributesOf(rep.attributes) };
}

export const topLevelExists = (name: string) => conflict(`Top level group named '${name}' already exists.`);
export const siblingExists = (name: string) => conflict(`Sibling group named '${name}' already exists.`);

/** Inserts a group; a sibling with the same name is the unique index's 409. */
async function insertGroup(
  ctx: RequestContext,
  realm: RealmModel,
  parent: GroupModel | null,
  input: GroupInput,
  rep: GroupBody,
): Promise<GroupModel> {
  const { Group } = ctx.db.models;
  const exists = () => (parent ? siblingExists(input.name) : topLevelExists(input.name));
  const group = await write(ctx, { unique: exists }, async () => {
    // Lock the parent so a concurrent delete of its subtree cannot leave the new child orphaned.
    if (parent && !(await Group.findByPk(parent.id, { attributes: ['id'], lock: true }))) throw notFound('Could not find group by id');
    const created = await Group.create({
      id: randomUUID(),
      realmId: realm.id,
      parentId: parent ? parent.id : TOP_LEVEL,
      name: input.name,
      description: input.description,
      attributes: input.attributes ?? {},
    });
    const resourcePath = parent ? `groups/${parent.id}/children` : `groups/${created.id}`;
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'GROUP',
      resourcePath,
      representation: { ...rep, id: created.id },
    });
    return created;
  });
  invalidate.group(ctx.loaders, group.id, parent?.id);
  return group;
}

/**
 * Moves an existing group (by id) under `parent`, or to the top level when `parent` is null; a no-op
 * when it is already there. A group cannot move under itself or one of its descendants (400).
 */
async function moveGroup(
  ctx: RequestContext,
  realm: RealmModel,
  childId: string,
  parent: GroupModel | null,
  name: string,
  rep: GroupBody,
): Promise<void> {
  const child = await findGroup(ctx, realm, childId, 'Could not find child by id');
  const target = parent ? parent.id : TOP_LEVEL;
  const oldParent = child.parentId;
  if (oldParent === target) return;
  const { Group } = ctx.db.models;
  await write(ctx, { unique: () => (parent ? siblingExists(name) : topLevelExists(name)) }, async () => {
    if (parent) {
      if (!(await Group.findByPk(parent.id, { attributes: ['id'], lock: true }))) throw notFound('Could not find group by id');
      if ((await ancestorIds(ctx, parent.id)).includes(child.id))
        throw badRequest('Cannot move a group under itself or one of its subgroups');
    }
    await Group.update({ parentId: target }, { where: { id: child.id, realmId: realm.id } });
    const resourcePath = parent ? `groups/${parent.id}/children` : 'groups';
    await recordAdminEvent(ctx, realm, { operationType: 'UPDATE', resourceType: 'GROUP', resourcePath, representation: rep });
  });
  // The subtree's paths and inherited roles change with its parent.
  invalidate.groups(ctx.loaders);
}

export interface AddGroupResult {
  /** true: a new group (201); false: an existing group was moved (204). */
  created: boolean;
  id: string;
  /** The new child's full representation (children POST only, which returns it as the 201 body). */
  representation?: GroupRep;
}

/** POST /{realm}/groups: creates a top-level group (201) or, with `id`, moves that group to the top level (204). */
export async function createTopLevelGroup(ctx: RequestContext, realm: RealmModel, rep: GroupBody): Promise<AddGroupResult> {
  await requireCap(ctx, realm, 'manageUsers');
  const input = groupInput(rep);
  if (rep.id !== undefined && rep.id !== null) {
    await moveGroup(ctx, realm, String(rep.id), null, input.name, rep);
    return { created: false, id: String(rep.id) };
  }
  const group = await insertGroup(ctx, realm, null, input, rep);
  return { created: true, id: group.id };
}

/**
 * POST /{realm}/groups/{id}/children (the parent resolved first): creates a child (201, body = the
 * child's full representation) or, with `id`, moves that group under this one (204). Needs manage of the
 * parent only, for a move too (Keycloak's GroupResource#addChild checks nothing on the moved group).
 */
export async function addSubGroup(ctx: RequestContext, realm: RealmModel, parent: GroupModel, rep: GroupBody): Promise<AddGroupResult> {
  await requireManageGroup(ctx, realm, parent.id);
  const input = groupInput(rep);
  if (rep.id !== undefined && rep.id !== null) {
    await moveGroup(ctx, realm, String(rep.id), parent, input.name, rep);
    return { created: false, id: String(rep.id) };
  }
  const child = await insertGroup(ctx, realm, parent, input, rep);
  return {
    created: true,
    id: child.id,
    representation: (await groupRepresentations(ctx, realm, [child], { brief: false, access: true }))[0],
  };
}

/**
 * PUT /{realm}/groups/{id} (the group resolved first, then manage of it): name, attributes (replaced when
 * given) and description (always set).
 */
export async function updateGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel, rep: GroupRep): Promise<void> {
  await requireManageGroup(ctx, realm, group.id);
  const input = groupInput(rep);
  if (rep.id !== undefined && rep.id !== null && rep.id !== group.id) throw badRequest('Invalid group id');
  await write(ctx, { unique: () => siblingExists(input.name) }, async () => {
    const fresh = await ctx.db.models.Group.findByPk(group.id, { lock: true });
    if (!fresh) throw notFound('Could not find group by id');
    fresh.name = input.name;
    fresh.description = input.description;
    if (input.attributes) fresh.attributes = input.attributes;
    await fresh.save();
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'GROUP',
      resourcePath: `groups/${group.id}`,
      representation: rep,
    });
  });
  invalidate.group(ctx.loaders, group.id, group.parentId);
}

/**
 * DELETE /{realm}/groups/{id} (the group resolved first, then manage of it): the group, its subtree, their
 * memberships, role mappings, default-group entries and fine-grained management permissions.
 */
export async function removeGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<void> {
  await requireManageGroup(ctx, realm, group.id);
  const m = ctx.db.models;
  await ctx.db.transaction(async () => {
    const all = await subtreeIds(ctx, [group.id], true);
    const inIds = { [Op.in]: all };
    await m.UserGroupMembership.destroy({ where: { groupId: inIds } });
    await m.GroupRoleMapping.destroy({ where: { groupId: inIds } });
    await m.RealmDefaultGroup.destroy({ where: { groupId: inIds } });
    await m.Group.destroy({ where: { id: inIds, realmId: realm.id } });
    // Keycloak drops a removed group's permissions (GroupPermissions#setPermissionsEnabled(false)).
    await dropManagementPermissions(ctx, realm, all.map(groupSpec));
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'GROUP', resourcePath: `groups/${group.id}` });
  });
  invalidate.groups(ctx.loaders);
}
