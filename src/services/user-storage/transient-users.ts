import type { RequestContext } from '../../core/context';
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
  /** The realm's default role, which Keycloak's InMemoryUserAdapter#addDefaults grants in memory. */
  defaultRoleId?: string;
  realm: RealmModel;
  /** What the membership mappers find in LDAP, read once per user model when first asked. */
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
  facts.set(user, { provider: p, entry: u, realm, defaultRoleId: realm.settings.defaultRoleId as string | undefined });
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

/** Makes transient users known to the request's loaders (the user by id and its attributes), so renderers and checks read no rows for them. */
export function primeTransient(ctx: RequestContext, users: UserModel[]): void {
  for (const u of users) {
    const f = transientFactsOf(u);
    if (!f) continue;
    ctx.loaders.userById.clear(u.id).prime(u.id, u);
    ctx.loaders.partsByUser.clear(u.id).prime(u.id, { attributes: f.entry.attributes, requiredActions: [], credentialTypes: [] });
    const direct = f.defaultRoleId ? [f.defaultRoleId] : [];
    ctx.loaders.roleIdsByUser.clear(u.id).prime(u.id, direct);
    ctx.loaders.groupIdsByUser.clear(u.id).prime(u.id, []);
  }
}

async function expanded(db: Db, roleIds: string[]): Promise<Set<string>> {
  const map = await expandComposites(db, roleIds);
  return new Set([...map.values()].flatMap((s) => [...s]));
}

/** A transient user's effective role ids: its default role expanded (read when asked: one statement). */
export async function transientEffectiveRoleIds(db: Db, user: UserModel): Promise<Set<string>> {
  return (await withTransientDefaults(db, [user], new Map())).get(user.id) ?? new Set();
}

/**
 * Effective role ids with the transient users' default role, mapper roles and mapper groups' roles
 * added (expanded): what the token code reads from role mappings, which such users do not have.
 */
export async function withTransientDefaults(
  db: Db,
  users: UserModel[],
  effective: Map<string, Set<string>>,
): Promise<Map<string, Set<string>>> {
  for (const u of users) {
    const f = transientFactsOf(u);
    if (!f) continue;
    const { groupIds, roleIds } = await transientMemberships(db, u);
    const direct = [...(f.defaultRoleId ? [f.defaultRoleId] : []), ...roleIds];
    const set = effective.get(u.id) ?? new Set<string>();
    for (const id of await expanded(db, direct)) set.add(id);
    for (const roles of (await effectiveRoleIdsForGroups(db, groupIds)).values()) for (const id of roles) set.add(id);
    effective.set(u.id, set);
  }
  return effective;
}

/**
 * The groups and roles a transient user's provider's group and role mappers give it, read from LDAP
 * once per user model (Keycloak's mapper proxies read them on each access): none without such mappers.
 */
export function transientMemberships(db: Db, user: UserModel): Promise<{ groupIds: string[]; roleIds: string[] }> {
  const f = transientFactsOf(user);
  if (!f || !f.provider.mappers.some(isMembershipMapper)) return Promise.resolve({ groupIds: [], roleIds: [] });
  const memberships = f.memberships ?? directoryMemberships(db, f.realm, f.provider, f.entry);
  f.memberships = memberships;
  return memberships;
}

/** The transient user of `/users/{id}` (primed into the loaders, with its memberships), or null. */
export async function resolveTransientUser(ctx: RequestContext, realm: RealmModel, id: string): Promise<UserModel | null> {
  if (!isStorageId(id)) return null;
  const user = await transientUserById(ctx.db, realm, id, await liveProviders(ctx, realm));
  if (!user) return null;
  primeTransient(ctx, [user]);
  const f = transientFactsOf(user);
  if (f?.provider.mappers.some(isMembershipMapper)) {
    const { groupIds, roleIds } = await transientMemberships(ctx.db, user);
    ctx.loaders.roleIdsByUser.clear(user.id).prime(user.id, [...(f.defaultRoleId ? [f.defaultRoleId] : []), ...roleIds]);
    ctx.loaders.groupIdsByUser.clear(user.id).prime(user.id, groupIds);
  }
  return user;
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
