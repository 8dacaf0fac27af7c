import { Attribute, BerWriter, Change, Control } from 'ldapts';
import type { Db } from '../../db';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { withAdmin } from './ldap-connection';
import { entryValues, type LdapUser, type Mapper } from './ldap-mapping';
import {
  ACCOUNT_ATTRIBUTES,
  type AccountControl,
  type AccountKind,
  accountControlOf,
  accountKindOf,
  hasFlag,
  LDS,
  MSAD_LDS_MAPPER,
  MSAD_MAPPER,
  mustChangePassword,
  UAC,
} from './msad-account';

export { MSAD_LDS_MAPPER, MSAD_MAPPER };
import type { Provider } from './ldap-store';

/**
 * The MSAD account-control mapper (`msad-user-account-control-mapper`, Keycloak's
 * MSADUserAccountControlStorageMapper) for Active Directory providers: the account's
 * `userAccountControl` flags and `pwdLastSet` drive the user's `enabled` and its UPDATE_PASSWORD
 * required action, in both directions for a WRITABLE provider, and AD's bind error codes decide what a
 * failed bind means.
 *
 * - Import and each validation at login: `enabled` is false exactly when ACCOUNTDISABLE is set.
 * - WRITABLE: UPDATE_PASSWORD is pending exactly while `pwdLastSet` is 0 (or absent) or PASSWORD_EXPIRED
 *   is set (Keycloak adds it on every read of the required actions; here the row follows the entry at
 *   import and at each login); an admin adding it sets `pwdLastSet` 0, removing it sets -1 (unless the
 *   account is new: no flags, or PASSWD_NOTREQD); enabling or disabling writes ACCOUNTDISABLE; a new
 *   password sets `pwdLastSet` -1 and clears PASSWD_NOTREQD, PASSWORD_EXPIRED (and ACCOUNTDISABLE for an
 *   enabled user).
 * - A bind refused with `AcceptSecurityContext error, data 532` (password expired) or `773` (must
 *   change) lets a WRITABLE provider's user in with UPDATE_PASSWORD to do; `533` (disabled) disables
 *   the user; `775` (locked) is logged.
 * - A new password AD refuses with 53/19 and 0000052D (complexity, history) is Keycloak's
 *   `invalidPasswordGenericMessage`.
 *
 * The AD LDS mapper (`msad-lds-user-account-control-mapper`, MSADLDSUserAccountControlStorageMapper)
 * does the same with AD LDS's attributes: `msDS-UserAccountDisabled` TRUE disables the user once the
 * account has a password (pwdLastSet > 0; otherwise the local flag alone counts) and is what
 * enabling / disabling writes (only then too), `msDS-UserPasswordExpired` TRUE asks for a new password
 * as pwdLastSet 0 does, removing UPDATE_PASSWORD sets -1 unless `msDS-UserPasswordNotRequired` is
 * TRUE, a new password sets pwdLastSet -1 (and `msDS-UserAccountDisabled` FALSE for an enabled user),
 * the bind codes are AD's, and a new password refused with `problem 1005 (CONSTRAINT_ATT_TYPE) ...
 * Att 23 (userPassword)` is `invalidPasswordRegexPatternMessage`.
 */
const log = getLogger('idserver.services.user-storage');
/** The provider's account-control mapper (AD or AD LDS), if any. */
export const msadMapperOf = (mappers: Mapper[]): Mapper | undefined => mappers.find((m) => accountKindOf(m.providerId));
const kindOf = (p: Provider): AccountKind | undefined => {
  const m = msadMapperOf(p.mappers);
  return m && accountKindOf(m.providerId);
};

/**
 * LDAP_SERVER_POLICY_HINTS (the deprecated OID, which AD 2008 R2 knows too; critical, value SEQUENCE
 * { INTEGER 1 }): AD then applies its password policy (history, minimum age) to a password set by the
 * admin account, as to a user's own change (Keycloak's LDAPServerPolicyHintsDecorator).
 */
export const POLICY_HINTS_OID = '1.2.840.113556.1.4.2066';

class PolicyHintsControl extends Control {
  constructor() {
    super(POLICY_HINTS_OID, { critical: true });
  }
  protected override writeControl(writer: BerWriter): void {
    const value = new BerWriter();
    value.startSequence();
    value.writeInt(1);
    value.endSequence();
    writer.writeBuffer(value.buffer, 0x04);
  }
}

/**
 * The controls of a password write (MSADUserAccountControlStorageMapper#beforePasswordUpdate): the
 * policy hints when the AD mapper has `ldap.password.policy.hints.enabled` and the user changes its own
 * password (never for an admin's reset).
 */
export function passwordWriteControls(p: Provider, byUser: boolean): Control[] | undefined {
  const m = p.mappers.find((x) => x.providerId === MSAD_MAPPER);
  if (!byUser || m?.config['ldap.password.policy.hints.enabled']?.toLowerCase() !== 'true') return undefined;
  return [new PolicyHintsControl()];
}

const writableMsad = (p: Provider) => p.cfg.editMode === 'WRITABLE' && msadMapperOf(p.mappers) !== undefined;

/**
 * After an import or a validation of a WRITABLE provider's user: the UPDATE_PASSWORD row follows the
 * entry (present while AD asks for a new password, gone once it does not). Inside or outside a transaction.
 */
export async function syncPasswordAction(db: Db, p: Provider, userId: string, u: LdapUser): Promise<void> {
  if (!writableMsad(p) || !u.account) return;
  const m = db.models.UserRequiredAction;
  if (mustChangePassword(u.account)) await m.bulkCreate([{ userId, requiredAction: 'UPDATE_PASSWORD' }], { ignoreDuplicates: true });
  else await m.destroy({ where: { userId, requiredAction: 'UPDATE_PASSWORD' } });
}

async function readAccount(p: Provider, kind: AccountKind, dn: string): Promise<AccountControl> {
  return withAdmin(p.cfg, async (c) => {
    const [entry] = (await c.search(dn, { scope: 'base', attributes: ACCOUNT_ATTRIBUTES[kind] })).searchEntries;
    const value = (attr: string) => (entry ? entryValues(entry, attr) : []);
    return accountControlOf(kind, value);
  });
}

type AccountValues = { userAccountControl?: number; pwdLastSet?: number } & { [LDS.DISABLED]?: 'TRUE' | 'FALSE' };

async function writeAccount(p: Provider, dn: string, values: AccountValues): Promise<void> {
  const changes = Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([type, v]) => new Change({ operation: 'replace', modification: new Attribute({ type, values: [String(v)] }) }));
  if (!changes.length) return;
  await withAdmin(p.cfg, (c) => c.modify(dn, changes));
}

/**
 * An admin update of a WRITABLE provider's user (MSADUserModelDelegate#setEnabled, add/removeRequiredAction):
 * `enabled` to ACCOUNTDISABLE (when the account has flags) or, AD LDS, to msDS-UserAccountDisabled
 * (when pwdLastSet > 0); UPDATE_PASSWORD added to `pwdLastSet` 0, removed to -1. One modify of the
 * entry; throws what the directory throws.
 */
export async function msadAccountUpdate(
  p: Provider,
  dn: string,
  change: { enabled?: boolean; updatePassword?: 'added' | 'removed' },
): Promise<void> {
  const kind = kindOf(p);
  if (!kind || !writableMsad(p) || (change.enabled === undefined && !change.updatePassword)) return;
  const current = await readAccount(p, kind, dn);
  const next: AccountValues = {};
  if (kind === 'lds') {
    if (change.enabled !== undefined && (current.pwdLastSet ?? 0) > 0) next[LDS.DISABLED] = change.enabled ? 'FALSE' : 'TRUE';
    if (change.updatePassword === 'added') next.pwdLastSet = 0;
    // A new account (no password required yet) keeps its pwdLastSet.
    if (change.updatePassword === 'removed' && !current.ldsPasswordNotRequired) next.pwdLastSet = -1;
    return writeAccount(p, dn, next);
  }
  const uac = current.userAccountControl;
  if (change.enabled !== undefined && uac) {
    const flipped = change.enabled ? uac & ~UAC.ACCOUNTDISABLE : uac | UAC.ACCOUNTDISABLE;
    if (flipped !== uac) next.userAccountControl = flipped;
  }
  if (change.updatePassword === 'added') next.pwdLastSet = 0;
  // A new account (no flags, or no password required yet) keeps its pwdLastSet.
  if (change.updatePassword === 'removed' && uac && !hasFlag(uac, UAC.PASSWD_NOTREQD)) next.pwdLastSet = -1;
  await writeAccount(p, dn, next);
}

/**
 * passwordUpdated: pwdLastSet -1 and, AD, the password flags cleared (and ACCOUNTDISABLE for an
 * enabled user); AD LDS, msDS-UserAccountDisabled FALSE for an enabled user.
 */
export async function msadPasswordUpdated(p: Provider, dn: string, user: Pick<UserModel, 'enabled'>): Promise<void> {
  const kind = kindOf(p);
  if (!kind) return;
  if (kind === 'lds') return writeAccount(p, dn, { pwdLastSet: -1, ...(user.enabled ? { [LDS.DISABLED]: 'FALSE' as const } : {}) });
  const { userAccountControl: uac } = await readAccount(p, kind, dn);
  let control = (uac ?? 0) & ~UAC.PASSWD_NOTREQD & ~UAC.PASSWORD_EXPIRED;
  if (user.enabled) control &= ~UAC.ACCOUNTDISABLE;
  await writeAccount(p, dn, { pwdLastSet: -1, userAccountControl: control });
}

/** A password-policy message key and its parameters. */
export interface PasswordRefusal {
  key: string;
  params: string[];
}

/**
 * processFailedPasswordUpdateException: AD refusing a new password for its policy (result 53 or 19
 * with the Windows error 0000052D) is `invalidPasswordGenericMessage`; AD LDS's constraint violation
 * on userPassword (`problem 1005 (CONSTRAINT_ATT_TYPE), data X, Att 23 (userPassword)`) is
 * `invalidPasswordRegexPatternMessage` with `passwordConstraintViolation`; anything else is undefined.
 */
export function msadPasswordRefusal(p: Provider, e: unknown): PasswordRefusal | undefined {
  const kind = kindOf(p);
  if (!kind) return undefined;
  const message = String((e as Error).message ?? '');
  if (kind === 'lds')
    return /problem 1005 \(CONSTRAINT_ATT_TYPE\), data [0-9a-f]*, Att 23 \(userPassword\)/.test(message)
      ? { key: 'invalidPasswordRegexPatternMessage', params: ['passwordConstraintViolation'] }
      : undefined;
  const code = (e as { code?: number }).code;
  return (code === 53 || code === 19) && /\b0*52D\b/.test(message.toUpperCase())
    ? { key: 'invalidPasswordGenericMessage', params: [] }
    : undefined;
}

/** What a refused bind of a provider's user means, from AD's `AcceptSecurityContext error, data XXX` diagnostic. */
export type BindFailure = 'update-password' | 'disabled' | undefined;

/** onAuthenticationFailure / processAuthErrorCode of both mappers (WRITABLE providers only). */
export function msadBindFailure(p: Provider, username: string, diagnostic: string | undefined): BindFailure {
  if (!writableMsad(p) || !diagnostic) return undefined;
  const code = /AcceptSecurityContext error, data ([0-9a-f]*), v/i.exec(diagnostic)?.[1]?.toLowerCase();
  if (code === '532' || code === '773') return 'update-password';
  if (code === '533') return 'disabled';
  if (code === '775') log.warn(`Locked user '${username}' attempted to log in (LDAP provider ${p.cfg.name})`);
  return undefined;
}
