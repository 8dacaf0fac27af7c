import { Attribute, Change, type Control } from 'ldapts';
import type { RequestContext } from '../../core/context';
import type { Logger } from '../../logging';
import type { Db } from '../../db';
import { errorA } from '../../core/errors';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { profileErrorResponse } from '../users/user-profile';
import { providerOfUser } from './federation';
import { ldapLinkOf } from './imported-users';
import { withAdmin } from './ldap-connection';
import { isAttributeMapper, LDAP_ENTRY_DN, LDAP_ID, ldapChangesOf, sameValues } from './ldap-mapping';
import type { Provider } from './ldap-store';
import { transientFactsOf } from './transient-users';
import { msadAccountUpdate, msadMapperOf, msadPasswordRefusal, msadPasswordUpdated, passwordWriteControls } from './msad';
import { PASSWORD_POLICY_MESSAGES } from '../users/password-policy';

/**
 * The edit modes of an LDAP provider for its users' admin updates and password resets
 * (LDAPStorageProvider#proxy of Keycloak): READ_ONLY refuses a change of a mapped field
 * (`error-user-attribute-read-only`) and a password reset; WRITABLE writes the change to the
 * directory first (a failure there leaves the local copy unchanged) and sets the password in LDAP
 * instead of storing it; UNSYNCED keeps both in the local copy only.
 */
type Fields = { username: string; email: string | null; firstName: string | null; lastName: string | null };

const readOnly = (p: Provider | null) => p !== null && (p.cfg.editMode === 'READ_ONLY' || !p.cfg.enabled);

async function entryDn(db: Db, user: UserModel): Promise<string> {
  const live = transientFactsOf(user);
  if (live) return live.entry.dn;
  const { dn } = await ldapLinkOf(db, user.id);
  if (!dn) throw errorA(400, 'Could not find the LDAP entry of the user');
  return dn;
}

/**
 * Before an admin update of a federated user: refuses (READ_ONLY) or writes to LDAP (WRITABLE) a change
 * of its mapped fields, and of the attributes a user-attribute mapper maps (`attributes`: the update's
 * writable attributes, when it has any; Keycloak's UserAttributeLDAPStorageMapper proxy writes them
 * through, or refuses them read-only).
 */
export async function federatedUserUpdate(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  next: Fields,
  attributes?: Record<string, string[]>,
): Promise<void> {
  if (!user.federationLink) return;
  const p = await providerOfUser(ctx.db, realm, user);
  if (!p || p.cfg.editMode === 'UNSYNCED') return;
  const changed: string[] = (['username', 'email', 'firstName', 'lastName'] as const).filter(
    (k) => (next[k] ?? null) !== (user[k] ?? null),
  );
  const changedAttributes = attributes && !transientFactsOf(user) ? await mappedAttributeChanges(ctx, p, user, attributes) : {};
  changed.push(...Object.keys(changedAttributes));
  if (!changed.length) return;
  if (readOnly(p))
    throw profileErrorResponse(changed.map((field) => ({ field, errorMessage: 'error-user-attribute-read-only', params: [field] })));
  const changes = ldapChangesOf(p.mappers, {
    email: next.email,
    firstName: next.firstName,
    lastName: next.lastName,
    attributes: changedAttributes,
  });
  const wanted = Object.entries(changes);
  if (!wanted.length) return;
  const dn = await entryDn(ctx.db, user);
  try {
    await withAdmin(p.cfg, (c) =>
      c.modify(
        dn,
        wanted.map(([type, values]) => new Change({ operation: 'replace', modification: new Attribute({ type, values }) })),
      ),
    );
  } catch (e) {
    ctx.log.warn(`LDAP provider ${p.cfg.name}: update of ${user.username} failed: ${(e as Error).message}`);
    throw errorA(400, 'Could not modify attribute for DN');
  }
}

/** The attributes of `given` that a user-attribute mapper of the provider maps and whose values differ from the user's stored ones. */
async function mappedAttributeChanges(
  ctx: RequestContext,
  p: Provider,
  user: UserModel,
  given: Record<string, string[]>,
): Promise<Record<string, string[]>> {
  const core = new Set(['username', 'email', 'firstName', 'lastName']);
  const mapped = new Set(
    p.mappers
      .filter((m) => isAttributeMapper(m) && m.config['ldap.attribute'])
      .map((m) => m.config['user.model.attribute'])
      .filter((n): n is string => Boolean(n) && !core.has(n) && n !== LDAP_ID && n !== LDAP_ENTRY_DN),
  );
  const names = Object.keys(given).filter((n) => mapped.has(n));
  if (!names.length) return {};
  const rows = await ctx.db.models.UserAttribute.findAll({ where: { userId: user.id, name: names }, attributes: ['name', 'value'] });
  const stored = new Map<string, string[]>();
  for (const r of rows) stored.set(r.name, [...(stored.get(r.name) ?? []), r.value]);
  return Object.fromEntries(names.filter((n) => !sameValues(given[n], stored.get(n) ?? [])).map((n) => [n, given[n]]));
}

/**
 * Where a user's new password goes, as Keycloak's credential manager decides it (the user's storage
 * provider first, LDAPStorageProvider#updateCredential): `local` for a local user or an UNSYNCED
 * provider's (stored here, under the realm's policy); `directory` for a WRITABLE one (set in LDAP,
 * nothing stored here; the realm's policy applies only with `validatePasswordPolicy`). A READ_ONLY
 * or disabled provider refuses: `DirectoryReadOnly`.
 */
export type PasswordTarget = { kind: 'local' } | { kind: 'directory'; provider: Provider; dn: string; checkPolicy: boolean };

/** A READ_ONLY (or disabled) LDAP provider's user cannot change the password (Keycloak's ReadOnlyException). */
export class DirectoryReadOnly extends Error {
  constructor() {
    super('Federated storage is not writable');
  }
}

/** The directory refused the new password (its own policy, a lost connection); the message is safe to show, `key` is its login-page message key. */
export class DirectoryWriteFailed extends Error {
  constructor(
    message: string,
    readonly key: string = message,
    readonly params: string[] = [],
  ) {
    super(message);
  }
}

export async function passwordTarget(db: Db, realm: RealmModel, user: UserModel): Promise<PasswordTarget> {
  if (!user.federationLink) return { kind: 'local' };
  const p = await providerOfUser(db, realm, user);
  if (!p || p.cfg.editMode === 'UNSYNCED') return { kind: 'local' };
  if (readOnly(p)) throw new DirectoryReadOnly();
  return { kind: 'directory', provider: p, dn: await entryDn(db, user), checkPolicy: p.cfg.validatePasswordPolicy };
}

/** Sets the password in the directory; a refusal is logged (without the password) and thrown as `DirectoryWriteFailed`. */
export async function writeTargetPassword(
  log: Logger,
  target: Extract<PasswordTarget, { kind: 'directory' }>,
  user: UserModel,
  password: string,
  /** The user sets its own password (the login's UPDATE_PASSWORD), not an admin. */
  byUser = false,
): Promise<void> {
  try {
    await writeDirectoryPassword(target.provider, target.dn, password, passwordWriteControls(target.provider, byUser));
    await msadPasswordUpdated(target.provider, target.dn, user);
  } catch (e) {
    const why = ((e as Error).message ?? '').split(password).join('***');
    log.warn(`LDAP provider ${target.provider.cfg.name}: password update of ${user.username} failed: ${why}`);
    const policy = msadPasswordRefusal(target.provider, e);
    if (policy) throw new DirectoryWriteFailed(PASSWORD_POLICY_MESSAGES[policy.key] ?? policy.key, policy.key, policy.params);
    throw new DirectoryWriteFailed('Could not update the password in LDAP');
  }
}

/**
 * An admin update of a federated user's `enabled` or of its UPDATE_PASSWORD required action: a
 * WRITABLE Active Directory provider with the MSAD account-control mapper keeps them in the entry
 * (`userAccountControl`, `pwdLastSet`; AD LDS with its mapper: `msDS-UserAccountDisabled`; msad.ts). A directory failure leaves the local user unchanged (400).
 */
export async function federatedAccountUpdate(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  change: { enabled?: boolean; requiredActions?: string[]; updatePassword?: 'added' | 'removed' },
): Promise<void> {
  if (!user.federationLink || transientFactsOf(user)) return;
  const p = await providerOfUser(ctx.db, realm, user);
  if (p?.cfg.editMode !== 'WRITABLE' || !msadMapperOf(p.mappers)) return;
  let updatePassword = change.updatePassword;
  if (!updatePassword && change.requiredActions) {
    const had = (await ctx.db.models.UserRequiredAction.count({ where: { userId: user.id, requiredAction: 'UPDATE_PASSWORD' } })) > 0;
    const wants = change.requiredActions.includes('UPDATE_PASSWORD');
    updatePassword = wants && !had ? 'added' : had && !wants ? 'removed' : undefined;
  }
  const enabled = change.enabled !== undefined && change.enabled !== user.enabled ? change.enabled : undefined;
  if (enabled === undefined && !updatePassword) return;
  const dn = await entryDn(ctx.db, user);
  try {
    await msadAccountUpdate(p, dn, { enabled, updatePassword });
  } catch (e) {
    ctx.log.warn(`LDAP provider ${p.cfg.name}: account control update of ${user.username} failed: ${(e as Error).message}`);
    throw errorA(400, 'Could not modify attribute for DN');
  }
}

/**
 * Sets the password of an entry (LDAPIdentityStore#updatePassword): Active Directory takes it as
 * `unicodePwd`, the password in double quotes encoded UTF-16LE; others get the Password Modify
 * extended operation when configured, else a replace of `userPassword`.
 */
export async function writeDirectoryPassword(p: Provider, dn: string, password: string, controls?: Control[]): Promise<void> {
  await withAdmin(p.cfg, async (c) => {
    if (p.cfg.activeDirectory) {
      const value = Buffer.from(`"${password}"`, 'utf16le');
      const change = new Change({ operation: 'replace', modification: new Attribute({ type: 'unicodePwd', values: [value] }) });
      await c.modify(dn, change, controls);
    } else if (p.cfg.usePasswordModifyExtendedOp) await c.exop('1.3.6.1.4.1.4203.1.11.1', passwordModifyValue(dn, password), controls);
    else {
      const change = new Change({ operation: 'replace', modification: new Attribute({ type: 'userPassword', values: [password] }) });
      await c.modify(dn, change, controls);
    }
  });
}

/** The BER value of a Password Modify request (RFC 3062): userIdentity [0] and newPasswd [2]. */
function passwordModifyValue(dn: string, password: string): Buffer {
  const field = (tag: number, v: string) => {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([Buffer.from([tag]), berLength(b.length), b]);
  };
  const body = Buffer.concat([field(0x80, dn), field(0x82, password)]);
  return Buffer.concat([Buffer.from([0x30]), berLength(body.length), body]);
}

function berLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
