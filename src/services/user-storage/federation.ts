import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { deleteUserRows } from '../../core/cascade';
import { systemContext } from '../../core/context';
import { getLogger } from '../../logging';
import { ImportConflict, importUser, ldapLinkOf, refreshUser } from './imported-users';
import { bindAs, bindOutcome, ldapErrorCode } from './ldap-connection';
import { msadBindFailure } from './msad';
import { importMemberships, refreshMemberships } from './membership-import';
import { ldapProviders, type Provider, userByEmail, userByUsername, userByUuid } from './ldap-store';
import { transientFactsOf, transientUser } from './transient-users';

/**
 * User federation at login (UserStorageManager and LDAPStorageProvider of Keycloak): a username
 * not found locally is looked up in the realm's LDAP providers by priority and imported; a local
 * copy is validated against its entry (gone from the directory → the copy is removed); the
 * password of a federated user without a local password is checked by a bind as its DN. A
 * directory that does not answer fails the lookup or the bind within its timeouts: local users
 * never touch it.
 */
const log = getLogger('idserver.services.user-storage');

/** Looks a username up in the realm's LDAP providers and imports the first match; null when none has it. */
async function lookupInDirectories(db: Db, realm: RealmModel, name: string): Promise<UserModel | null> {
  const providers = await ldapProviders(db, realm);
  for (const p of providers) {
    try {
      let found = await userByUsername(p, name);
      if (!found && name.includes('@') && realm.settings.loginWithEmailAllowed !== false) found = await userByEmail(p, name);
      if (!found) continue;
      const u = found;
      // Import off: the user is served from its entry, nothing stored (ADR 46).
      if (!p.cfg.importEnabled) return transientUser(db, realm, p, u);
      const user = await db.transaction(() => importUser(db, realm, p, u));
      await importMemberships(db, realm, p, user, u).catch((e) =>
        log.warn(`LDAP provider ${p.cfg.name}: memberships of ${u.username} not imported: ${(e as Error).message}`),
      );
      return user;
    } catch (e) {
      if (e instanceof ImportConflict) log.warn(`LDAP provider ${p.cfg.name}: ${e.message}`);
      else log.warn(`LDAP provider ${p.cfg.name} lookup failed: ${ldapErrorCode(e)}`);
    }
  }
  return null;
}

/** A local copy checked against its directory entry: null when the entry is gone (the copy is then removed). */
async function validated(db: Db, realm: RealmModel, user: UserModel): Promise<UserModel | null> {
  const [p] = await ldapProviders(db, realm, { all: true, id: user.federationLink as string });
  if (!p?.cfg.enabled) return user;
  const { uuid } = await ldapLinkOf(db, user.id);
  try {
    const entry = uuid ? await userByUuid(p, uuid) : await userByUsername(p, user.username);
    if (!entry) {
      if (p.cfg.editMode === 'UNSYNCED') return user;
      log.info(`User ${user.username} no longer exists in LDAP provider ${p.cfg.name}: removing its local copy`);
      await db.transaction(() => deleteUserRows(systemContext(db), user.id));
      return null;
    }
    if (p.cfg.editMode !== 'UNSYNCED') await db.transaction(() => refreshUser(db, p, user, entry));
    await refreshMemberships(db, realm, p, user, entry);
  } catch (e) {
    log.warn(`LDAP provider ${p.cfg.name} could not validate user ${user.username}: ${ldapErrorCode(e)}`);
  }
  return user;
}

/** The user a login names: a local user by username (or by email when allowed), else one found in and imported from LDAP. */
export async function findLoginUser(db: Db, realm: RealmModel, username: string): Promise<UserModel | null> {
  const lower = username.trim().toLowerCase();
  if (!lower) return null;
  let user = await db.models.User.findOne({ where: { realmId: realm.id, username: lower } });
  if (!user && realm.settings.loginWithEmailAllowed !== false) {
    const byEmail = await db.models.User.findAll({ where: { realmId: realm.id, email: lower }, limit: 2 });
    user = byEmail.length === 1 ? byEmail[0] : null;
  }
  if (user?.federationLink) return validated(db, realm, user);
  if (user) return user;
  return lookupInDirectories(db, realm, lower);
}

/** The provider of a federated user (null for a local user or one whose provider is gone). */
export async function providerOfUser(db: Db, realm: RealmModel, user: UserModel): Promise<Provider | null> {
  const live = transientFactsOf(user);
  if (live) return live.provider;
  if (!user.federationLink) return null;
  const [p] = await ldapProviders(db, realm, { all: true, id: user.federationLink });
  return p ?? null;
}

/**
 * The password check of a federated user: undefined when it is not federated or has a local
 * password (checked locally, as Keycloak's isConfiguredLocally), otherwise whether a bind as its
 * DN succeeds (false when its provider is disabled or the directory does not answer).
 */
export async function federatedPasswordValid(
  db: Db,
  realm: RealmModel,
  user: UserModel,
  password: string | undefined,
): Promise<boolean | undefined> {
  if (!user.federationLink) return undefined;
  const live = transientFactsOf(user);
  if (live) {
    if (!password) return false;
    try {
      return await bindAs(live.provider.cfg, live.entry.dn, password);
    } catch (e) {
      log.warn(`LDAP provider ${live.provider.cfg.name} could not check the password of ${user.username}: ${ldapErrorCode(e)}`);
      return false;
    }
  }
  if ((await db.models.Credential.count({ where: { userId: user.id, type: 'password' } })) > 0) return undefined;
  const p = await providerOfUser(db, realm, user);
  if (!p?.cfg.enabled || !password) return false;
  const { dn } = await ldapLinkOf(db, user.id);
  try {
    const target = dn ?? (await userByUsername(p, user.username))?.dn;
    if (!target) return false;
    const bind = await bindOutcome(p.cfg, target, password);
    if (bind.ok) return true;
    // Active Directory's reason for the refusal (the MSAD account-control mapper's onAuthenticationFailure).
    const failure = msadBindFailure(p, user.username, bind.diagnostic);
    if (failure === 'update-password') {
      // The password is right but must change: the login goes on to UPDATE_PASSWORD.
      await db.models.UserRequiredAction.bulkCreate([{ userId: user.id, requiredAction: 'UPDATE_PASSWORD' }], { ignoreDuplicates: true });
      return true;
    }
    if (failure === 'disabled') {
      // Disabled in AD: disabled here too, and the login answers as for any disabled account.
      await db.models.User.update({ enabled: false }, { where: { id: user.id } });
      user.enabled = false;
      return true;
    }
    return false;
  } catch (e) {
    log.warn(`LDAP provider ${p.cfg.name} could not check the password of ${user.username}: ${ldapErrorCode(e)}`);
    return false;
  }
}
