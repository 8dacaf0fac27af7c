import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { mappingDbErrors } from '../../core/db-errors';
import { conflict } from '../../core/errors';
import { insertChunked } from '../../db/bulk-insert';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import { invalidate } from '../../loaders/invalidate';
import type { GroupRep } from '../../representations/group';
import type { UserRep } from '../../representations/user';
import { groupInput, siblingExists, topLevelExists } from '../groups/groups';
import { importConsents } from '../users/consents';
import { importFederatedIdentities } from '../users/federated-identities';
import { duplicateError, insertUserRows, type NewUserRows, newUserRows } from '../users/users';
import { keepable, takenIds } from './import-ids';
import { loadGroupPaths, loadRoleIndex } from './import-refs';

/**
 * The bulk of an import (realm import `groups` and `users`, partial import GROUP and USER items):
 * every representation is read and checked as its single create checks it, its references resolved
 * in memory ({@link loadRoleIndex}, {@link loadGroupPaths}), and all rows are then written with a
 * few INSERT statements per table (src/db/bulk-insert.ts). The statement count does not grow with
 * the number of users or groups, so the import's transaction (and on SQLite the one write lock)
 * is held for the inserts only; plain passwords are hashed before it starts (`hashPasswordsAhead`).
 * Imported content records no admin events of its own (the import records its own, as Keycloak).
 */

/** The realm with its settings read once: the model parses their JSON on every access, thousands of times here. */
function settled(realm: RealmModel): RealmModel {
  const settings = realm.settings;
  return new Proxy(realm, { get: (target, prop) => (prop === 'settings' ? settings : Reflect.get(target, prop, target)) });
}

const list = <T extends object>(v: unknown): T[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as T[]) : []);

/** Creates the group trees of `reps` (top-level groups with their `subGroups` and role mappings); returns the top-level ids. */
export async function importGroupTrees(ctx: RequestContext, realm: RealmModel, reps: GroupRep[]): Promise<string[]> {
  if (!reps.length) return [];
  const roles = await loadRoleIndex(ctx, realm);
  const treeIds = (reps: GroupRep[]): unknown[] => reps.flatMap((g) => [g.id, ...treeIds(list<GroupRep>(g.subGroups))]);
  const taken = await takenIds(ctx, 'Group', treeIds(reps));
  const groups: Array<Record<string, unknown>> = [];
  const mappings: Array<{ groupId: string; roleId: string }> = [];
  // Depth first, parents before children (a child's row refers to its parent's), as one by one would.
  const add = (rep: GroupRep, parentId: string | null, siblings: Set<string>): string => {
    const input = groupInput({ name: rep.name, description: rep.description, attributes: rep.attributes });
    if (siblings.has(input.name)) throw parentId ? siblingExists(input.name) : topLevelExists(input.name);
    siblings.add(input.name);
    const id = keepable(rep.id, taken) ? rep.id : randomUUID();
    taken.add(id);
    groups.push({
      id,
      realmId: realm.id,
      parentId: parentId ?? TOP_LEVEL,
      name: input.name,
      description: input.description,
      attributes: input.attributes ?? {},
    });
    for (const roleId of roles.ids(rep.realmRoles, rep.clientRoles)) mappings.push({ groupId: id, roleId });
    const children = new Set<string>();
    for (const child of list<GroupRep>(rep.subGroups)) add(child, id, children);
    return id;
  };
  const topLevel = new Set<string>();
  const ids = reps.map((rep) => add(rep, null, topLevel));
  // A top-level name taken meanwhile by a group outside the import: the unique index says so.
  await mappingDbErrors({ unique: () => topLevelExists(String(reps[0].name)) }, async () => {
    await insertChunked(ctx.db.models.Group, groups);
    await insertChunked(ctx.db.models.GroupRoleMapping, mappings);
  });
  invalidate.groups(ctx.loaders);
  return ids;
}

/** Fields of an imported user that are links to other resources, not part of POST /users. */
const LINKS = ['id', 'realmRoles', 'clientRoles', 'clientConsents', 'federatedIdentities', 'serviceAccountClientId'];

/**
 * Creates imported users (no default roles, groups or required actions, as Keycloak imports) with
 * their attributes, credentials, groups (by path), role mappings (by name), identity links and
 * consents; returns their ids in order. A duplicate username or email within the batch is POST
 * /users' 409, one already in the realm the unique index's.
 */
export async function importUsers(
  ctx: RequestContext,
  model: RealmModel,
  reps: UserRep[],
  opts: { keepIds?: boolean; accounts?: Map<string, string> } = {},
): Promise<string[]> {
  if (!reps.length) return [];
  const realm = settled(model);
  const roles = await loadRoleIndex(ctx, realm);
  const groups = await loadGroupPaths(ctx, realm);
  const duplicateEmails = realm.settings.duplicateEmailsAllowed === true || realm.settings.duplicateEmailsAllowed === 'true';
  const usernames = new Set<string>();
  const emails = new Set<string>();
  const unique = (username: string, email: string | null) => {
    if (usernames.has(username)) throw conflict('User exists with same username');
    if (email && !duplicateEmails && emails.has(email)) throw conflict('User exists with same email');
    usernames.add(username);
    if (email) emails.add(email);
  };
  const users: NewUserRows[] = [];
  const mappings: Array<{ userId: string; roleId: string }> = [];
  for (const rep of reps) {
    const body = Object.fromEntries(Object.entries(rep).filter(([k]) => !LINKS.includes(k))) as UserRep;
    const user = await newUserRows(ctx, realm, opts.keepIds ? { ...body, id: rep.id } : body, {
      imported: true,
      keepIds: opts.keepIds,
      unique,
      groupIds: (paths) => groups.ids(paths),
    });
    if (typeof rep.notBefore === 'number') user.user.notBefore = rep.notBefore;
    const account = opts.accounts?.get(String(rep.serviceAccountClientId));
    if (account) user.user.serviceAccountClientLink = account;
    users.push(user);
    for (const roleId of roles.ids(rep.realmRoles, rep.clientRoles)) mappings.push({ userId: user.id, roleId });
  }
  await mappingDbErrors({ unique: duplicateError }, async () => {
    await insertUserRows(ctx, users);
    await insertChunked(ctx.db.models.UserRoleMapping, mappings);
  });
  // Identity links and consents are rare in exports: written per user, and only where present.
  for (const [i, rep] of reps.entries()) {
    if (rep.federatedIdentities) await importFederatedIdentities(ctx, realm, users[i].id, rep.federatedIdentities);
    if (rep.clientConsents) await importConsents(ctx, realm, users[i].id, rep.clientConsents);
  }
  for (const u of users) invalidate.user(ctx.loaders, u.id);
  return users.map((u) => u.id);
}

/**
 * Role mappings that an import's users give to service-account users (which came with their clients):
 * the users found in one read by their clients' clientIds, the mappings written at once.
 */
export async function importServiceAccountRoles(ctx: RequestContext, realm: RealmModel, reps: UserRep[]): Promise<void> {
  if (!reps.length) return;
  const m = ctx.db.models;
  const roles = await loadRoleIndex(ctx, realm);
  const clientIds = [...new Set(reps.map((r) => String(r.serviceAccountClientId)))];
  const clients = await m.Client.findAll({
    where: { realmId: realm.id, clientId: { [Op.in]: clientIds } },
    attributes: ['id', 'clientId'],
  });
  const accounts = clients.length
    ? await m.User.findAll({
        where: { realmId: realm.id, serviceAccountClientLink: { [Op.in]: clients.map((c) => c.id) } },
        attributes: ['id', 'serviceAccountClientLink'],
      })
    : [];
  const clientOf = new Map(clients.map((c) => [c.id, c.clientId]));
  const accountOf = new Map(accounts.map((u) => [clientOf.get(u.serviceAccountClientLink as string), u.id]));
  const mappings: Array<{ userId: string; roleId: string }> = [];
  for (const rep of reps) {
    const userId = accountOf.get(String(rep.serviceAccountClientId));
    if (!userId) continue;
    for (const roleId of roles.ids(rep.realmRoles, rep.clientRoles)) mappings.push({ userId, roleId });
    invalidate.user(ctx.loaders, userId);
  }
  // The account may hold some of them already (its default roles).
  await insertChunked(m.UserRoleMapping, mappings, { ignoreDuplicates: true });
}

/**
 * Service-account users of `idserver import`, as the file has them (id, attributes, roles, creation
 * time): the account each client got when it was created gives way to the file's user, linked to
 * the client by its clientId. A user whose client is not in the realm is left out, as before.
 */
export async function importServiceAccountUsers(ctx: RequestContext, realm: RealmModel, reps: UserRep[]): Promise<void> {
  if (!reps.length) return;
  const m = ctx.db.models;
  const clients = await m.Client.findAll({
    where: { realmId: realm.id, clientId: { [Op.in]: [...new Set(reps.map((r) => String(r.serviceAccountClientId)))] } },
    attributes: ['id', 'clientId'],
  });
  const accounts = new Map(clients.map((c) => [c.clientId, c.id]));
  const linked = reps.filter((r) => accounts.has(String(r.serviceAccountClientId)));
  if (!linked.length) return;
  const replaced = await m.User.findAll({
    where: { realmId: realm.id, serviceAccountClientLink: { [Op.in]: linked.map((r) => accounts.get(String(r.serviceAccountClientId))) } },
    attributes: ['id'],
  });
  if (replaced.length) await m.User.destroy({ where: { id: { [Op.in]: replaced.map((u) => u.id) } } });
  for (const u of replaced) invalidate.user(ctx.loaders, u.id);
  await importUsers(ctx, realm, linked, { keepIds: true, accounts });
}
