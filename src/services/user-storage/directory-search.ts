import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import type { RealmModel } from '../../db/models/realm';
import { isUniqueViolation } from '../../core/db-errors';
import { ImportConflict, importUser } from './imported-users';
import { ldapErrorCode } from './ldap-connection';
import { importMemberships } from './membership-import';
import type { LdapUser } from './ldap-mapping';
import type { UserModel } from '../../db/models/user';
import { liveProviders, primeTransient, transientUser } from './transient-users';
import { cachedProviders, type Provider, userByEmail, userByUsername, usersByField, usersBySearch } from './ldap-store';

/**
 * The admin user search falling through to LDAP (UserStorageManager#searchForUserStream of
 * Keycloak): before the local query runs, the realm's import-enabled LDAP providers are searched
 * with the same term (at most the page's end), and the directory users not yet imported are
 * imported, so the local query then lists them. A realm without LDAP providers costs nothing (the
 * provider list is shared until its components change); a directory that fails is skipped with a
 * warning and the local users are listed.
 */
export interface DirectoryQuery {
  search?: string;
  username?: string;
  email?: string;
  exact?: boolean;
  first?: number;
  max?: number;
}

async function found(p: Provider, q: DirectoryQuery, limit: number): Promise<LdapUser[]> {
  if (q.search !== undefined) {
    if (q.search.trim().startsWith('id:')) return [];
    return usersBySearch(p, q.search, limit);
  }
  if (q.username !== undefined) {
    if (q.exact) return [await userByUsername(p, q.username.toLowerCase())].filter((u): u is LdapUser => u !== null);
    return usersByField(p, 'username', q.username, false, limit);
  }
  if (q.email !== undefined && q.exact) return [await userByEmail(p, q.email.toLowerCase())].filter((u): u is LdapUser => u !== null);
  if (q.email !== undefined) return usersByField(p, 'email', q.email, false, limit);
  return usersBySearch(p, '', limit);
}

/** Whether a listing is one the directory answers too: a search, a username or email filter, or none at all. */
export const directorySearchable = (q: DirectoryQuery & Record<string, unknown>, others: string[]) =>
  others.every((k) => q[k] === undefined || q[k] === null);

/**
 * The users of the realm's import-off providers a listing shows after its local users (Keycloak's
 * UserStorageManager#query: local storage first, then the providers by priority): `skip` of them
 * left out, at most `max`. A directory that fails is skipped with a warning.
 */
export async function transientMatches(
  ctx: RequestContext,
  realm: RealmModel,
  q: DirectoryQuery,
  skip: number,
  max: number,
): Promise<UserModel[]> {
  const providers = await liveProviders(ctx, realm);
  const out: UserModel[] = [];
  let left = skip;
  for (const p of providers) {
    if (out.length >= max) break;
    let users: LdapUser[];
    try {
      users = await found(p, q, Math.min(1000, left + max - out.length));
    } catch (e) {
      ctx.log.warn(`LDAP provider ${p.cfg.name}: user search failed: ${ldapErrorCode(e)}`);
      continue;
    }
    users.sort((a, b) => a.username.localeCompare(b.username));
    const taken = users.slice(left, left + max - out.length);
    left = Math.max(0, left - users.length);
    out.push(...taken.map((u) => transientUser(ctx.db, realm, p, u)));
  }
  primeTransient(ctx, out);
  return out;
}

/** Imports the directory users a user search would list (GET /users?search|username|email). */
export async function importMatchingDirectoryUsers(ctx: RequestContext, realm: RealmModel, q: DirectoryQuery): Promise<void> {
  if (q.search === undefined && q.username === undefined && q.email === undefined) return;
  if (q.email !== undefined && !q.exact) return;
  const providers = (await cachedProviders(ctx, realm)).filter((p) => p.cfg.importEnabled);
  if (!providers.length) return;
  const limit = Math.min(1000, Math.max(1, (q.first ?? 0) + (q.max ?? 100)));
  for (const p of providers) {
    let users: LdapUser[];
    try {
      users = await found(p, q, limit);
    } catch (e) {
      ctx.log.warn(`LDAP provider ${p.cfg.name}: user search failed: ${ldapErrorCode(e)}`);
      continue;
    }
    if (!users.length) continue;
    const existing = await ctx.db.models.User.findAll({
      where: { realmId: realm.id, username: { [Op.in]: users.map((u) => u.username) } },
      attributes: ['username'],
    });
    const have = new Set(existing.map((u) => u.username));
    for (const u of users.filter((x) => !have.has(x.username))) {
      try {
        const user = await ctx.db.transaction(() => importUser(ctx.db, realm, p, u));
        await importMemberships(ctx.db, realm, p, user, u).catch((e) =>
          ctx.log.warn(`LDAP provider ${p.cfg.name}: memberships of ${u.username} not imported: ${(e as Error).message}`),
        );
      } catch (e) {
        // A request beside this one imported the same entry first: its row is the user.
        if (isUniqueViolation(e)) continue;
        if (!(e instanceof ImportConflict)) throw e;
        ctx.log.warn(`LDAP provider ${p.cfg.name}: ${e.message}`);
      }
    }
  }
}
