import { memo, type RequestContext } from '../../core/context';
import { sharedValue } from '../../core/shared-cache';
import { effectiveRoleIdsForGroups, expandComposites } from '../../core/effective-roles';
import { errorA, errorB } from '../../core/errors';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { userFieldsOf } from './imported-users';
import { ldapErrorCode } from './ldap-connection';
import type { LdapUser } from './ldap-mapping';
import { cachedProviders, ldapProviders, type Provider, userByUsername } from './ldap-store';
import { isMembershipMapper } from './membership-config';
import { directoryMemberships } from './membership-import';
import { HARDCODED_ROLE_MAPPER, hardcodedTarget, isHardcodedMembershipMapper } from './hardcoded-mappers';

/**
 * Users of LDAP providers with `importEnabled=false` (ADR 46): served live from the directory, never
 * written to user_entity. As Keycloak's LDAPStorageProvider#importUserFromLDAP without import (an
 * InMemoryUserAdapter per request), such a user is a user model built from its entry on each
 * request, its id Keycloak's StorageId `f:{componentId}:{username}` (StorageId's external id is the
 * LDAP username: getUserById looks the user up by it), `federationLink` its provider. It exists as
 * long as its entry does: a change or a delete in the directory shows on the next request. Its
 * sessions and brute-force record hold the StorageId (migration 0036); everything else a local user
 * keeps in rows (role mappings, groups, attributes not mapped to LDAP, credentials, required
 * actions) it does not have, and writes of those are refused as Keycloak's ReadOnlyUserModelDelegate
 * refuses them.
 */
const log = getLogger('idserver.services.user-storage');

const PREFIX = 'f:';

/** Whether an id is a StorageId (a user of a storage provider) rather than a local user's id. */
export const isStorageId = (id: string) => id.startsWith(PREFIX);

/** The provider (component) id and the external id of a StorageId, or null for a local id. */
export function parseStorageId(id: string): { providerId: string; externalId: string } | null {
  if (!isStorageId(id)) return null;
  const rest = id.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0 || colon === rest.length - 1) return null;
  return { providerId: rest.slice(0, colon), externalId: rest.slice(colon + 1) };
}

/** The StorageId of a provider's user. */
export const storageIdOf = (providerId: string, externalId: string) => `${PREFIX}${providerId}:${externalId}`;

/** A provider whose users are served live: enabled and not importing. */
export const servesLive = (p: Provider) => p.cfg.enabled && !p.cfg.importEnabled;

interface TransientFacts {
  provider: Provider;
  entry: LdapUser;
  realm: RealmModel;
  /** Its direct roles and groups (defaults, hardcoded and membership mappers), read once per user model when first asked. */
  memberships?: Promise<{ groupIds: string[]; roleIds: string[] }>;
}

const facts = new WeakMap<object, TransientFacts>();

/** The provider and directory entry of a transient user (undefined for a stored user). */
export const transientFactsOf = (user: UserModel): TransientFacts | undefined => facts.get(user);

/** Whether a user model is a transient federated user. */
export const isTransient = (user: UserModel) => facts.has(user);

/** The user model of a directory entry of an import-off provider (nothing stored). */
export function transientUser(db: Db, realm: RealmModel, p: Provider, u: LdapUser): UserModel {
  const realmId = realm.id;
  const id = storageIdOf(p.cfg.id, u.username);
  const user = db.models.User.build(
    {
      id,
      realmId,
      // Keycloak's InMemoryUserAdapter is made on each lookup, stamped with the time it was made.
      ...userFieldsOf(p, u),
      emailConstraint: id,
    },
    { isNewRecord: false },
  );
  facts.set(user, { provider: p, entry: u, realm });
  return user;
}

/**
 * The transient user a StorageId names in this realm: null when it names no enabled import-off LDAP
 * provider of the realm, the directory has no such user, or the directory does not answer (logged).
 * `providers`: the realm's enabled providers when the caller has them (else two statements).
 */
export async function transientUserById(db: Db, realm: RealmModel, id: string, providers?: Provider[]): Promise<UserModel | null> {
  const sid = parseStorageId(id);
  if (!sid) return null;
  const list = providers ?? (await ldapProviders(db, realm, { id: sid.providerId }));
  const p = list.find((x) => x.cfg.id === sid.providerId);
  if (!p || !servesLive(p)) return null;
  try {
    const entry = await userByUsername(p, sid.externalId.toLowerCase());
    return entry ? transientUser(db, realm, p, entry) : null;
  } catch (e) {
    log.warn(`LDAP provider ${p.cfg.name}: lookup of user ${sid.externalId} failed: ${ldapErrorCode(e)}`);
    return null;
  }
}

/** The request's providers serving users live (shared between requests until the realm's components change). */
export async function liveProviders(ctx: RequestContext, realm: RealmModel): Promise<Provider[]> {
  return (await cachedProviders(ctx, realm)).filter(servesLive);
}

/**
 * Makes transient users known to the request's loaders (the user by id and its attributes), so renderers
 * and checks read no rows for them. Their roles and groups are not primed: the readers ask
 * `transientMemberships` (directly, or through `userRoleIds` and `actorRoleIds`), read when first asked.
 */
export function primeTransient(ctx: RequestContext, users: UserModel[]): void {
  for (const u of users) {
    const f = transientFactsOf(u);
    if (!f) continue;
    ctx.loaders.userById.clear(u.id).prime(u.id, u);
    ctx.loaders.partsByUser.clear(u.id).prime(u.id, { attributes: f.entry.attributes, requiredActions: [], credentialTypes: [] });
  }
}

async function expanded(db: Db, roleIds: string[]): Promise<Set<string>> {
  const map = await expandComposites(db, roleIds);
  return new Set([...map.values()].flatMap((s) => [...s]));
}

/** A transient user's effective role ids: its direct roles and its groups' roles, expanded (read when asked). */
export async function transientEffectiveRoleIds(db: Db, user: UserModel): Promise<Set<string>> {
  return (await withTransientDefaults(db, [user], new Map())).get(user.id) ?? new Set();
}

/**
 * Effective role ids with the transient users' direct roles (default role, hardcoded and mapper roles)
 * and their groups' roles added (expanded): what the token code reads from role mappings, which such
 * users do not have.
 */
export async function withTransientDefaults(
  db: Db,
  users: UserModel[],
  effective: Map<string, Set<string>>,
): Promise<Map<string, Set<string>>> {
  for (const u of users) {
    if (!isTransient(u)) continue;
    const { groupIds, roleIds } = await transientMemberships(db, u);
    const set = effective.get(u.id) ?? new Set<string>();
    for (const id of await expanded(db, roleIds)) set.add(id);
    for (const roles of (await effectiveRoleIdsForGroups(db, groupIds)).values()) for (const id of roles) set.add(id);
    effective.set(u.id, set);
  }
  return effective;
}

/**
 * A transient user's direct roles and groups, as Keycloak's InMemoryUserAdapter under the provider's
 * mapper proxies answers them: the realm's default role and default groups (AbstractInMemoryUserAdapter
 * #addDefaults, which LDAPStorageProvider#importUserFromLDAP calls when import is off), the role of each
 * hardcoded-ldap-role-mapper and the group of each hardcoded-ldap-group-mapper (HardcodedLDAPRoleStorageMapper
 * and HardcodedLDAPGroupStorageMapper add them in their proxies; a name that resolves to nothing adds
 * nothing), and what the group and role mappers find in LDAP. Read once per user model (Keycloak's
 * proxies read them on each access).
 */
export function transientMemberships(db: Db, user: UserModel): Promise<{ groupIds: string[]; roleIds: string[] }> {
  const f = transientFactsOf(user);
  if (!f) return Promise.resolve({ groupIds: [], roleIds: [] });
  f.memberships ??= readMemberships(db, f);
  return f.memberships;
}

/** What a provider's transient users all have: the realm's default role and groups, the hardcoded mappers' roles and groups. */
interface InMemoryDefaults {
  roleIds: string[];
  groupIds: string[];
  /** A hardcoded group was not found: not kept (a group's insert raises no cache version). */
  missingGroup: boolean;
}

/** The realm's cache version its model was read with (ADR 23), when known. */
function realmVersionOf(realm: RealmModel): number | undefined {
  const own = (realm as RealmModel & { cacheVersion?: number }).cacheVersion;
  const v = own ?? realm.getDataValue?.('cacheVersion' as 'id');
  return v === null || v === undefined || !Number.isFinite(Number(v)) ? undefined : Number(v);
}

/**
 * A provider's in-memory defaults, kept on this node under the realm's version (roles, clients, groups'
 * updates and deletes, components and default groups raise it: migrations 0013, 0037); read afresh when
 * the version is not known.
 */
function inMemoryDefaults(db: Db, realm: RealmModel, provider: Provider): Promise<InMemoryDefaults> {
  const v = realmVersionOf(realm);
  return sharedValue(
    `transient-defaults:${realm.id}:${provider.cfg.id}`,
    v === undefined ? undefined : `r${v}`,
    () => readDefaults(db, realm, provider),
    (d) => !d.missingGroup,
  );
}

async function readDefaults(db: Db, realm: RealmModel, provider: Provider): Promise<InMemoryDefaults> {
  const roleIds: string[] = [];
  const defaultRoleId = realm.settings.defaultRoleId as string | undefined;
  if (defaultRoleId) roleIds.push(defaultRoleId);
  const defaults = await db.models.RealmDefaultGroup.findAll({ where: { realmId: realm.id }, attributes: ['groupId'] });
  const groupIds = defaults.map((d) => d.groupId);
  let missingGroup = false;
  for (const m of provider.mappers) {
    if (!isHardcodedMembershipMapper(m.providerId)) continue;
    const t = await hardcodedTarget(db, realm, m);
    if (t.roleId) roleIds.push(t.roleId);
    else if (t.groupId) groupIds.push(t.groupId);
    else if (m.providerId === HARDCODED_ROLE_MAPPER && m.config.role)
      log.warn(`Hardcoded role '${m.config.role}' configured in mapper '${m.name}' is not available anymore`);
    else if (m.config.group) {
      missingGroup = true;
      log.warn(`Hardcoded group '${m.config.group}' configured in mapper '${m.name}' is not available anymore`);
    }
  }
  return { roleIds, groupIds, missingGroup };
}

async function readMemberships(db: Db, f: TransientFacts): Promise<{ groupIds: string[]; roleIds: string[] }> {
  const { realm, provider } = f;
  const defaults = await inMemoryDefaults(db, realm, provider);
  const roleIds = [...defaults.roleIds];
  const groupIds = [...defaults.groupIds];
  if (provider.mappers.some(isMembershipMapper)) {
    const found = await directoryMemberships(db, realm, provider, f.entry);
    roleIds.push(...found.roleIds);
    groupIds.push(...found.groupIds);
  }
  return { roleIds: [...new Set(roleIds)], groupIds: [...new Set(groupIds)] };
}

/** The transient user of `/users/{id}` (primed into the loaders), or null. */
export async function resolveTransientUser(ctx: RequestContext, realm: RealmModel, id: string): Promise<UserModel | null> {
  if (!isStorageId(id)) return null;
  const user = await transientUserById(ctx.db, realm, id, await liveProviders(ctx, realm));
  if (!user) return null;
  primeTransient(ctx, [user]);
  return user;
}

/** A user's direct role ids: a transient user's from `transientMemberships`, a stored user's from the loader. */
export async function userRoleIds(ctx: RequestContext, user: UserModel): Promise<string[]> {
  return isTransient(user) ? (await transientMemberships(ctx.db, user)).roleIds : ctx.loaders.roleIdsByUser.load(user.id);
}

/** Keycloak's ReadOnlyUserModelDelegate message, as the admin API answers it. */
export const readOnlyMessage = (user: UserModel, what: string) =>
  `The user is read-only. Not possible to write '${what}' when updating user '${user.username}'.`;

/** Refuses a write a transient user cannot hold (role mappings, groups, credentials...): 400, as Keycloak's admin resources answer a ReadOnlyException. */
export function refuseTransientWrite(user: UserModel, what: string, description?: string): void {
  if (!isTransient(user)) return;
  if (description) throw errorB(400, 'invalid_request', description);
  throw errorA(400, readOnlyMessage(user, what));
}

/** A user by id for the token and login code: a transient user for a StorageId, else the stored row (realm not checked). */
export function userOrTransient(
  db: Db,
  realm: RealmModel,
  id: string,
  stored: (id: string) => Promise<UserModel | null>,
): Promise<UserModel | null> {
  return isStorageId(id) ? transientUserById(db, realm, id) : stored(id);
}

/** The attributes of transient users as attribute rows (the token mappers read rows). */
export function transientAttributeRows(users: UserModel[]): Array<{ id: string; userId: string; name: string; value: string }> {
  return users.flatMap((u) =>
    Object.entries(transientFactsOf(u)?.entry.attributes ?? {}).flatMap(([name, values]) =>
      values.map((value, i) => ({ id: `${u.id}:${name}:${i}`, userId: u.id, name, value })),
    ),
  );
}

const actorKey = (id: string) => `transient-actor:${id}`;

/** Keeps the transient user the bearer check read for the request's caller (so the request reads its entry once). */
export function rememberTransientActor(ctx: RequestContext, user: UserModel): void {
  primeTransient(ctx, [user]);
  ctx.memo.set(actorKey(user.id), Promise.resolve(user));
}

/** The request's caller when it is a transient user (as the bearer check read it, else read again), or null. */
export function transientActor(ctx: RequestContext): Promise<UserModel | null> {
  const a = ctx.actor;
  if (!a || !isStorageId(a.userId)) return Promise.resolve(null);
  return memo(ctx, actorKey(a.userId), async () => {
    const realm = await ctx.loaders.realmById.load(a.realmId);
    return realm ? resolveTransientUser(ctx, realm, a.userId) : null;
  });
}

/**
 * The caller's effective role ids, whoever it is: a stored user's through the loader, a transient
 * user's from its defaults, hardcoded and mapper memberships (once per request).
 */
export function actorRoleIds(ctx: RequestContext): Promise<Set<string>> {
  const a = ctx.actor;
  if (!a) return Promise.resolve(new Set());
  if (!isStorageId(a.userId)) return ctx.loaders.effectiveRoleIdsByUser.load(a.userId);
  return memo(ctx, `transient-actor-roles:${a.userId}`, async () => {
    const user = await transientActor(ctx);
    return user ? transientEffectiveRoleIds(ctx.db, user) : new Set<string>();
  });
}
