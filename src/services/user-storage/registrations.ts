import { Attribute, NoSuchObjectError } from 'ldapts';
import type { RequestContext } from '../../core/context';
import { conflict, errorA } from '../../core/errors';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { writeDirectoryPassword } from './edit-modes';
import { providerOfUser } from './federation';
import { ldapLinkOf } from './imported-users';
import { ldapErrorCode, withAdmin } from './ldap-connection';
import { dnOfNewEntry, entryOfNewUser, LDAP_ENTRY_DN, LDAP_ID, type NewDirectoryUser } from './ldap-mapping';
import { cachedProviders, type Provider, userByEmail, userByUsername } from './ldap-store';

/**
 * Users created through the admin API in a realm whose LDAP provider synchronizes registrations
 * (LDAPStorageProvider#addUser / #removeUser of Keycloak, `syncRegistrations` with the WRITABLE
 * edit mode): the entry is created in the directory first (with the password, when one is given),
 * and the user becomes its local copy; a delete of a user of a WRITABLE provider removes its entry
 * first. A directory that fails answers 400 and nothing is written locally; a local write that
 * fails after the entry was created removes the entry again.
 */
export interface DirectoryRegistration {
  /** The provider the user is now linked to (`federationLink`). */
  providerId: string;
  /** LDAP_ID and LDAP_ENTRY_DN of the new entry. */
  attributes: Record<string, string[]>;
  /** True when the password went to the directory (the local copy stores none). */
  passwordInDirectory: boolean;
  /** Removes the entry again (the local write failed). */
  undo(): Promise<void>;
}

/** The first provider by priority that takes registrations (Keycloak's synchronizeRegistrations). */
async function registrationProvider(ctx: RequestContext, realm: RealmModel): Promise<Provider | undefined> {
  const providers = await cachedProviders(ctx, realm);
  // A provider with import off would create Keycloak's in-memory user: not supported here (ADR 45).
  return providers.find((p) => p.cfg.syncRegistrations && p.cfg.editMode === 'WRITABLE' && p.cfg.importEnabled);
}

function failed(ctx: RequestContext, p: Provider, what: string, e: unknown): never {
  ctx.log.warn(`LDAP provider ${p.cfg.name}: ${what} failed: ${ldapErrorCode(e)}`);
  throw errorA(400, 'Could not create user');
}

/**
 * Creates the directory entry of a new user when a provider synchronizes registrations; null when
 * none does. A username or email already in the directory is Keycloak's 409 (its lookup falls through to LDAP).
 */
export async function registerInDirectory(
  ctx: RequestContext,
  realm: RealmModel,
  user: NewDirectoryUser,
  password: string | undefined,
): Promise<DirectoryRegistration | null> {
  const p = await registrationProvider(ctx, realm);
  if (!p) return null;
  let taken: 'username' | 'email' | undefined;
  try {
    if (await userByUsername(p, user.username)) taken = 'username';
    else if (user.email && (await userByEmail(p, user.email))) taken = 'email';
  } catch (e) {
    failed(ctx, p, 'lookup before registration', e);
  }
  if (taken) throw conflict(`User exists with same ${taken}`);
  const entry = entryOfNewUser(p.cfg, p.mappers, user);
  const dn = dnOfNewEntry(p.cfg, entry);
  let uuid: string | undefined;
  try {
    uuid = await withAdmin(p.cfg, async (c) => {
      await c.add(
        dn,
        Object.entries(entry).map(([type, values]) => new Attribute({ type, values })),
      );
      const { searchEntries } = await c.search(dn, { scope: 'base', attributes: [p.cfg.uuidAttribute] });
      const v = searchEntries[0]?.[p.cfg.uuidAttribute];
      return (Array.isArray(v) ? v[0] : v)?.toString();
    });
  } catch (e) {
    failed(ctx, p, `registration of ${user.username}`, e);
  }
  const undo = () =>
    withAdmin(p.cfg, (c) => c.del(dn)).catch((e) =>
      ctx.log.warn(`LDAP provider ${p.cfg.name}: could not remove the entry of ${user.username} again: ${ldapErrorCode(e)}`),
    );
  if (password) {
    try {
      await writeDirectoryPassword(p, dn, password);
    } catch (e) {
      await undo();
      failed(ctx, p, `password of ${user.username}`, e);
    }
  }
  ctx.log.debug(`LDAP provider ${p.cfg.name}: registered ${user.username} as ${dn}`);
  return {
    providerId: p.cfg.id,
    attributes: { [LDAP_ID]: [uuid ?? dn], [LDAP_ENTRY_DN]: [dn] },
    passwordInDirectory: Boolean(password),
    undo,
  };
}

/**
 * Before a user is deleted: the entry of a user of a WRITABLE provider is removed from the
 * directory (one already gone is fine); READ_ONLY and UNSYNCED delete the local copy only, as
 * Keycloak does (the user comes back with the next lookup or sync). A directory that fails: 400,
 * the user stays.
 */
export async function federatedUserDelete(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<void> {
  if (!user.federationLink) return;
  const p = await providerOfUser(ctx.db, realm, user);
  if (!p) return;
  if (p.cfg.editMode !== 'WRITABLE') {
    ctx.log.warn(
      `User '${user.username}' can't be deleted in LDAP as editMode is '${p.cfg.editMode}'. Deleting user just from the local database`,
    );
    return;
  }
  const { dn } = await ldapLinkOf(ctx.db, user.id);
  if (!dn) return;
  try {
    await withAdmin(p.cfg, (c) => c.del(dn));
  } catch (e) {
    if (e instanceof NoSuchObjectError) return;
    ctx.log.warn(`LDAP provider ${p.cfg.name}: delete of ${user.username} failed: ${ldapErrorCode(e)}`);
    throw errorA(400, 'Could not remove the user from LDAP');
  }
}
