import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { canQueryUsers, requireManageUser, requireViewUser, usersAccess } from '../../auth/fgap';
import { requireCap } from '../../auth/permissions';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { type HttpError, badRequest, conflict, errorC, forbidden, notFound } from '../../core/errors';
import { write } from '../../core/db-errors';
import { invalidate } from '../../loaders/invalidate';
import { getLogger } from '../../logging';
import { type UserRep, type UserRepExtras, toUserRepresentation } from '../../representations/user';
import { recordAdminEvent } from '../../core/admin-events';
import { releaseUserOnEnable } from '../sessions/brute-force';
import type { RequestContext } from '../../core/context';
import { deleteUserRows } from '../../core/cascade';
import { insertChunked } from '../../db/bulk-insert';
import { federatedIdentitiesOf } from './federated-links';
import { storeCredentialRows } from './password-history';
import { federatedAccountUpdate, federatedUserUpdate } from '../user-storage/edit-modes';
import { federatedUserDelete, registerInDirectory } from '../user-storage/registrations';
import { isStorageId, isTransient, resolveTransientUser } from '../user-storage/transient-users';
import { transientUserDelete, transientUserUpdate } from '../user-storage/transient-writes';
import { attributeRules, profileErrorResponse, readableAttributes, userProfileConfig, validateProfile } from './user-profile';
import {
  type CredentialRow,
  attributeRows,
  groupIdsForPaths,
  knownActions,
  normalizeAttributes,
  prepareCredentials,
  requiredActionSets,
  textField,
  writableAttributes,
} from './users-input';

/**
 * Users (reference §4.1–4.6): create, read, update and delete, with Keycloak's user-profile
 * validation, uniqueness rules and representations. Listing and counting live in users-search.ts,
 * the UP config in user-profile.ts.
 */
const log = getLogger('idserver.services.users');

const flag = (v: unknown) => v === true || v === 'true';
const emailAsUsername = (realm: RealmModel) => flag(realm.settings.registrationEmailAsUsername);
const duplicateEmailsAllowed = (realm: RealmModel) => flag(realm.settings.duplicateEmailsAllowed);

/** The value of the unique (realm, email_constraint) index: the email when the realm forbids duplicates, else the id. */
export const emailConstraintOf = (realm: RealmModel, id: string, email: string | null) =>
  email && !duplicateEmailsAllowed(realm) ? email : id;

/**
 * Resolves `/users/{id}` of a realm: 404 `User not found` when the caller may query users,
 * else 403 (so ids cannot be probed).
 */
export async function resolveUser(ctx: RequestContext, realm: RealmModel, id: string): Promise<UserModel> {
  // A StorageId (`f:...`) names a user served live by an import-off LDAP provider (ADR 46).
  const user = isStorageId(id) ? await resolveTransientUser(ctx, realm, id) : await ctx.loaders.userById.load(id);
  if (user && user.realmId === realm.id) return user;
  if (await canQueryUsers(ctx, realm)) throw notFound('User not found');
  throw forbidden();
}

/** `access` of a single user representation (§2.8): the caller's roles, else its fine-grained permissions on this user. */
export async function userAccess(ctx: RequestContext, realm: RealmModel, userId: string): Promise<Record<string, boolean>> {
  return (await usersAccess(ctx, realm, [userId]))[0];
}

function loaded<T>(values: Array<T | Error>): T[] {
  for (const v of values) if (v instanceof Error) throw v;
  return values as T[];
}

/**
 * Keycloak representations of many users with a bounded number of queries (one per loader).
 * `mode`: full (single GET and listings), brief (briefRepresentation=true), member (group members, role users).
 */
export async function renderUsers(
  ctx: RequestContext,
  realm: RealmModel,
  users: UserModel[],
  opts: {
    mode?: 'full' | 'brief' | 'member';
    access?: Record<string, boolean>;
    federatedIdentities?: UserRepExtras['federatedIdentities'];
  } = {},
): Promise<UserRep[]> {
  if (!users.length) return [];
  const mode = opts.mode ?? 'full';
  const ids = users.map((u) => u.id);
  const full = mode === 'full';
  // The users' parts as one list (one promise for the page, not one per user and part).
  const [rules, parts] = await Promise.all([
    userProfileConfig(ctx, realm).then(attributeRules),
    ctx.loaders.partsOfUsers.load(ids).then(loaded),
  ]);
  const attrs = parts.map((p) => p.attributes);
  const actions = full ? parts.map((p) => p.requiredActions) : [];
  const creds = full ? parts.map((p) => p.credentialTypes) : [];
  return users.map((u, i) => {
    const types = creds[i] ?? [];
    return toUserRepresentation(
      u,
      {
        attributes: readableAttributes(rules, attrs[i]),
        requiredActions: actions[i] ?? [],
        totp: types.includes('otp'),
        disableableCredentialTypes: types.includes('otp') ? ['otp'] : [],
        access: opts.access,
        federatedIdentities: opts.federatedIdentities,
      },
      mode,
    );
  });
}

/** GET /admin/realms/{realm}/users/{id}: the full representation with `access` (view-users). */
export async function getUser(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<UserRep> {
  await requireViewUser(ctx, realm, user.id);
  const federatedIdentities = await federatedIdentitiesOf(ctx, realm, user.id);
  const [rep] = await renderUsers(ctx, realm, [user], { access: await userAccess(ctx, realm, user.id), federatedIdentities });
  return rep;
}

/** 409 for a username or email already used by another user of the realm (read check; the unique indexes decide races). */
async function assertUnique(
  ctx: RequestContext,
  realm: RealmModel,
  username: string | null,
  email: string | null,
  selfId?: string,
): Promise<void> {
  const { User } = ctx.db.models;
  const notSelf = selfId ? { id: { [Op.ne]: selfId } } : {};
  if (username && (await User.findOne({ where: { realmId: realm.id, username, ...notSelf }, attributes: ['id'] }))) {
    throw conflict('User exists with same username');
  }
  if (
    email &&
    !duplicateEmailsAllowed(realm) &&
    (await User.findOne({ where: { realmId: realm.id, email, ...notSelf }, attributes: ['id'] }))
  ) {
    throw conflict('User exists with same email');
  }
}

/** Maps a unique-index violation on user_entity to Keycloak's 409. */
export function duplicateError(e: unknown): HttpError {
  const err = e as { fields?: unknown; message?: string; parent?: { message?: string; sqlMessage?: string } };
  const text = `${JSON.stringify(err.fields ?? '')} ${err.parent?.sqlMessage ?? ''} ${err.parent?.message ?? ''} ${err.message ?? ''}`;
  if (/email_constraint/i.test(text)) return conflict('User exists with same email');
  if (/username/i.test(text)) return conflict('User exists with same username');
  return conflict('User exists with same username or email');
}

/** A user write: one transaction (retried on deadlock by db.transaction), a unique violation is the 409 it means. */
const writeUser = <T>(ctx: RequestContext, fn: () => Promise<T>): Promise<T> => write(ctx, { unique: duplicateError }, fn);

const asRep = (rep: unknown): UserRep => {
  if (!rep || typeof rep !== 'object' || Array.isArray(rep)) throw errorC(400, 'HTTP 400 Bad Request');
  return rep as UserRep;
};

/** A new user's rows, read and checked from a UserRepresentation; nothing written yet. */
export interface NewUserRows {
  id: string;
  user: Record<string, unknown>;
  attributes: ReturnType<typeof attributeRows>;
  requiredActions: string[];
  credentials: Array<CredentialRow & { userId: string }>;
  groupIds: string[];
}

/**
 * Reads a UserRepresentation for a new user as POST /users does (user profile, required actions,
 * group paths, credentials) and builds its rows. `unique` runs where the 409 for a taken username
 * or email belongs; `groupIds` resolves `groups` paths (by default one look-up per path). A realm
 * import calls it for each of its users and inserts them all at once ({@link insertUserRows}).
 */
export async function newUserRows(
  ctx: RequestContext,
  realm: RealmModel,
  rep: UserRep,
  opts: {
    imported?: boolean;
    /** `idserver import`: the user's and its credentials' ids and every attribute as given (a migration keeps them, as Keycloak's import does). */
    keepIds?: boolean;
    unique?: (username: string, email: string | null) => Promise<void> | void;
    groupIds?: (paths: unknown) => Promise<string[]> | string[];
    /** The caller checked the profile in its own context (the registration form, src/services/login/registration.ts). */
    profileChecked?: boolean;
  } = {},
): Promise<NewUserRows> {
  const config = await userProfileConfig(ctx, realm);
  const rules = attributeRules(config);
  const email = textField(rep.email)?.toLowerCase() ?? null;
  const username = (emailAsUsername(realm) ? email : textField(rep.username)) ?? null;
  if (!username) throw badRequest('User name is missing');
  const firstName = textField(rep.firstName) ?? null;
  const lastName = textField(rep.lastName) ?? null;
  // A full import (keepIds) stores every attribute as exported, as Keycloak's import does; others follow the profile.
  const given = normalizeAttributes(rep.attributes) ?? {};
  const attributes = opts.keepIds ? given : writableAttributes(rules, given);
  const errors = opts.profileChecked ? [] : validateProfile(config, realm, { username, email, firstName, lastName, attributes });
  await opts.unique?.(username.toLowerCase(), email);
  if (errors.length) throw profileErrorResponse(errors);

  const groupIds = await (opts.groupIds ? opts.groupIds(rep.groups) : groupIdsForPaths(ctx, realm, rep.groups));
  const actionSets = await requiredActionSets(ctx, realm);
  const creds = await prepareCredentials(rep.credentials, {
    ctx,
    realm,
    username: username.toLowerCase(),
    email,
    imported: opts.imported,
    keepIds: opts.keepIds,
  });
  const actions = new Set([...(opts.imported ? [] : actionSets.defaults), ...knownActions(actionSets, rep.requiredActions)]);
  if (creds.temporary) actions.add('UPDATE_PASSWORD');

  const id = opts.keepIds && typeof rep.id === 'string' && rep.id ? rep.id : randomUUID();
  return {
    id,
    user: {
      id,
      realmId: realm.id,
      username: username.toLowerCase(),
      email,
      emailConstraint: emailConstraintOf(realm, id, email),
      firstName,
      lastName,
      enabled: flag(rep.enabled),
      emailVerified: flag(rep.emailVerified),
      createdTimestamp: rep.createdTimestamp != null ? Number(rep.createdTimestamp) : Date.now(),
      serviceAccountClientLink: null,
      federationLink: textField(rep.federationLink) ?? null,
      notBefore: 0,
    },
    attributes: attributeRows(id, attributes),
    requiredActions: [...actions],
    credentials: creds.rows.map((c) => ({ ...c, userId: id })),
    groupIds,
  };
}

/** Writes new users (rows of {@link newUserRows}) with one statement per table and chunk; call inside a write. */
export async function insertUserRows(ctx: RequestContext, users: NewUserRows[]): Promise<void> {
  const m = ctx.db.models;
  await insertChunked(
    m.User,
    users.map((u) => u.user),
  );
  await insertChunked(
    m.UserAttribute,
    users.flatMap((u) => u.attributes),
  );
  await insertChunked(
    m.UserRequiredAction,
    users.flatMap((u) => u.requiredActions.map((requiredAction) => ({ userId: u.id, requiredAction }))),
  );
  await insertChunked(
    m.Credential,
    users.flatMap((u) => u.credentials),
  );
  await insertChunked(
    m.UserGroupMembership,
    users.flatMap((u) => u.groupIds.map((groupId) => ({ userId: u.id, groupId }))),
  );
}

/** Writes one new user with the realm's default groups and default role (none for an import); call inside a write. */
async function insertNewUser(ctx: RequestContext, realm: RealmModel, rows: NewUserRows, imported = false): Promise<void> {
  const m = ctx.db.models;
  const defaultRoleId = imported ? undefined : (realm.settings.defaultRoleId as string | undefined);
  const defaults = imported ? [] : await m.RealmDefaultGroup.findAll({ where: { realmId: realm.id }, attributes: ['groupId'] });
  await insertUserRows(ctx, [{ ...rows, groupIds: [...new Set([...defaults.map((d) => d.groupId), ...rows.groupIds])] }]);
  if (defaultRoleId) await m.UserRoleMapping.create({ userId: rows.id, roleId: defaultRoleId });
}

/**
 * A user who registered on the login's registration page (src/services/login/registration.ts): the
 * rows of {@link newUserRows} (`more` may add to them) written as POST /users writes them, with the
 * default role, default groups and default required actions, in one transaction; `after` runs in it
 * too (an organization membership). No admin event: Keycloak records REGISTER, a user event. A taken
 * username or e-mail is the 409 HttpError of {@link duplicateError}.
 */
export async function registerUser(
  ctx: RequestContext,
  realm: RealmModel,
  rows: NewUserRows,
  opts: { password?: string; after?: (userId: string) => Promise<void> } = {},
): Promise<void> {
  const registered = await registeredInDirectory(ctx, realm, rows, opts.password);
  await writeUser(ctx, async () => {
    await insertNewUser(ctx, realm, rows);
    await opts.after?.(rows.id);
  }).catch(async (e: unknown) => {
    await registered?.undo();
    throw e;
  });
  invalidate.user(ctx.loaders, rows.id);
}

/**
 * POST /admin/realms/{realm}/users: creates a user (manage-users). Returns the new id.
 * `imported` (realm import): no default role, default groups or default required actions, as Keycloak imports.
 */
export async function createUser(
  ctx: RequestContext,
  realm: RealmModel,
  body: unknown,
  opts: { imported?: boolean } = {},
): Promise<string> {
  await requireCap(ctx, realm, 'manageUsers');
  const rep = asRep(body);
  const rows = await newUserRows(ctx, realm, rep, {
    imported: opts.imported,
    unique: (username, email) => assertUnique(ctx, realm, username, email),
  });
  const { id } = rows;
  const registered = opts.imported ? null : await registeredInDirectory(ctx, realm, rows, plainPassword(rep));
  await writeUser(ctx, async () => {
    await insertNewUser(ctx, realm, rows, opts.imported);
    if (!opts.imported) {
      await recordAdminEvent(ctx, realm, {
        operationType: 'CREATE',
        resourceType: 'USER',
        resourcePath: `users/${id}`,
        representation: rep,
      });
    }
  }).catch(async (e: unknown) => {
    await registered?.undo();
    throw e;
  });
  invalidate.user(ctx.loaders, id);
  log.debug(`User ${id} created in realm ${realm.name}`);
  return id;
}

/** The plain password of a representation's credentials, if it has one. */
function plainPassword(rep: UserRep): string | undefined {
  const list = Array.isArray(rep.credentials) ? (rep.credentials as Array<Record<string, unknown> | null>) : [];
  const plain = list.find((c) => c && (c.type ?? 'password') === 'password' && typeof (c.value ?? c.rawPassword) === 'string');
  return plain ? String(plain.value ?? plain.rawPassword) || undefined : undefined;
}

/**
 * A new user (POST /users, or the registration form) of a provider that synchronizes registrations
 * (Keycloak's UserStorageManager.addUser): its entry created in LDAP with `password`, its rows made the
 * local copy's. A username or e-mail in the directory is the 409 of {@link duplicateError}'s words; a
 * directory that fails, 400 "Could not create user"; nothing is written then.
 */
async function registeredInDirectory(ctx: RequestContext, realm: RealmModel, rows: NewUserRows, password: string | undefined) {
  const u = rows.user as { username: string; email: string | null; firstName: string | null; lastName: string | null };
  const attributes: Record<string, string[]> = {};
  for (const a of rows.attributes) attributes[a.name] = [...(attributes[a.name] ?? []), a.value];
  const reg = await registerInDirectory(ctx, realm, { ...u, attributes }, password);
  if (!reg) return null;
  rows.user.federationLink = reg.providerId;
  rows.attributes.push(...attributeRows(rows.id, reg.attributes));
  if (reg.passwordInDirectory) rows.credentials = rows.credentials.filter((c) => c.type !== 'password');
  return reg;
}

/** PUT /admin/realms/{realm}/users/{id}: merges the representation into the user (manage-users). */
export async function updateUser(ctx: RequestContext, realm: RealmModel, user: UserModel, body: unknown): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  const rep = asRep(body);
  const config = await userProfileConfig(ctx, realm);
  const rules = attributeRules(config);
  const next = { username: user.username, email: user.email, firstName: user.firstName, lastName: user.lastName };
  const fields = new Set(['email', 'firstName', 'lastName']);

  const email = textField(rep.email);
  if (email !== undefined) next.email = email?.toLowerCase() ?? null;
  if (emailAsUsername(realm)) {
    if (email) next.username = email.toLowerCase();
  } else if (flag(realm.settings.editUsernameAllowed) && rep.username !== undefined && rep.username !== null) {
    const u = textField(rep.username);
    if (!u) throw badRequest('User name is missing');
    next.username = u.toLowerCase();
  }
  if (next.username !== user.username) fields.add('username');
  const firstName = textField(rep.firstName);
  if (firstName !== undefined) next.firstName = firstName;
  const lastName = textField(rep.lastName);
  if (lastName !== undefined) next.lastName = lastName;

  const input = normalizeAttributes(rep.attributes);
  const stored = await ctx.loaders.attributesByUser.load(user.id);
  let attributes = stored;
  if (input) {
    const kept = Object.fromEntries(Object.entries(stored).filter(([k]) => !rules.canWrite(k)));
    attributes = { ...writableAttributes(rules, input), ...kept };
    for (const name of rules.managed.keys()) fields.add(name);
  }
  const errors = validateProfile(config, realm, { ...next, attributes }, fields);
  await assertUnique(
    ctx,
    realm,
    next.username !== user.username ? next.username : null,
    next.email !== user.email ? next.email : null,
    user.id,
  );
  if (errors.length) throw profileErrorResponse(errors);
  if (isTransient(user)) {
    await transientUserUpdate(ctx, user, rep, next, input ? writableAttributes(rules, input) : undefined);
    await federatedUserUpdate(ctx, realm, user, next);
    await writeUser(ctx, () =>
      recordAdminEvent(ctx, realm, {
        operationType: 'UPDATE',
        resourceType: 'USER',
        resourcePath: `users/${user.id}`,
        representation: rep,
      }),
    );
    invalidate.user(ctx.loaders, user.id);
    return;
  }
  await federatedUserUpdate(ctx, realm, user, next, input ? writableAttributes(rules, input) : undefined);

  const actionSets = await requiredActionSets(ctx, realm);
  const actions = Array.isArray(rep.requiredActions) ? knownActions(actionSets, rep.requiredActions) : undefined;
  // Active Directory keeps `enabled` and UPDATE_PASSWORD in the entry (the MSAD account-control mapper).
  await federatedAccountUpdate(ctx, realm, user, {
    enabled: rep.enabled != null ? flag(rep.enabled) : undefined,
    requiredActions: actions,
  });
  const creds = await prepareCredentials(rep.credentials, { ctx, realm, userId: user.id, username: next.username, email: next.email });
  const m = ctx.db.models;
  await writeUser(ctx, async () => {
    const fresh = await m.User.findByPk(user.id);
    if (!fresh) throw notFound('User not found');
    fresh.set({ ...next, emailConstraint: emailConstraintOf(realm, user.id, next.email) });
    if (rep.enabled != null) fresh.enabled = flag(rep.enabled);
    if (rep.emailVerified != null) fresh.emailVerified = flag(rep.emailVerified);
    if (rep.federationLink != null) fresh.federationLink = textField(rep.federationLink) ?? null;
    await fresh.save();
    if (input) {
      const replaced = (await m.UserAttribute.findAll({ where: { userId: user.id }, attributes: ['name'] }))
        .map((r) => r.name)
        .filter((n) => rules.canWrite(n));
      const given = writableAttributes(rules, input);
      const names = [...new Set([...replaced, ...Object.keys(given)])];
      if (names.length) await m.UserAttribute.destroy({ where: { userId: user.id, name: { [Op.in]: names } } });
      const rows = attributeRows(user.id, given);
      if (rows.length) await m.UserAttribute.bulkCreate(rows);
    }
    if (actions) {
      await m.UserRequiredAction.destroy({ where: { userId: user.id } });
      const set = new Set(actions);
      if (creds.temporary) set.add('UPDATE_PASSWORD');
      if (set.size) await m.UserRequiredAction.bulkCreate([...set].map((requiredAction) => ({ userId: user.id, requiredAction })));
    } else if (creds.temporary) {
      await m.UserRequiredAction.bulkCreate([{ userId: user.id, requiredAction: 'UPDATE_PASSWORD' }], { ignoreDuplicates: true });
    }
    if (creds.rows.length) await storeCredentialRows(ctx.db, realm, user.id, creds.rows);
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'USER',
      resourcePath: `users/${user.id}`,
      representation: rep,
    });
    if (rep.enabled != null && flag(rep.enabled)) await releaseUserOnEnable(ctx, realm, user.id);
  });
  invalidate.user(ctx.loaders, user.id);
}

/** DELETE /admin/realms/{realm}/users/{id}: removes the user and everything hanging off it (manage-users). */
export async function deleteUser(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  if (isTransient(user)) await transientUserDelete(ctx, user);
  else await federatedUserDelete(ctx, realm, user);
  await writeUser(ctx, async () => {
    await deleteUserRows(ctx, user.id);
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'USER', resourcePath: `users/${user.id}` });
  });
  invalidate.user(ctx.loaders, user.id);
  log.debug(`User ${user.id} deleted from realm ${realm.name}`);
}
