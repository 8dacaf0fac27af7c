import { Attribute, Change } from 'ldapts';
import type { Db } from '../../db';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { withAdmin } from './ldap-connection';
import type { LdapUser, Mapper } from './ldap-mapping';
import { type AccountControl, accountControlOf, hasFlag, MSAD_ATTRIBUTES, MSAD_MAPPER, mustChangePassword, UAC } from './msad-account';

export { MSAD_MAPPER };
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
 */
const log = getLogger('idserver.services.user-storage');
export const msadMapperOf = (mappers: Mapper[]): Mapper | undefined => mappers.find((m) => m.providerId === MSAD_MAPPER);

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

async function readAccount(p: Provider, dn: string): Promise<AccountControl> {
  return withAdmin(p.cfg, async (c) => {
    const [entry] = (await c.search(dn, { scope: 'base', attributes: MSAD_ATTRIBUTES })).searchEntries;
    const value = (attr: string) => {
      const v = entry?.[attr];
      return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
    };
    return accountControlOf(value);
  });
}

async function writeAccount(p: Provider, dn: string, values: { userAccountControl?: number; pwdLastSet?: number }): Promise<void> {
  const changes = Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([type, v]) => new Change({ operation: 'replace', modification: new Attribute({ type, values: [String(v)] }) }));
  if (!changes.length) return;
  await withAdmin(p.cfg, (c) => c.modify(dn, changes));
}

/**
 * An admin update of a WRITABLE provider's user (MSADUserModelDelegate#setEnabled, add/removeRequiredAction):
 * `enabled` to ACCOUNTDISABLE (when the account has flags), UPDATE_PASSWORD added to `pwdLastSet` 0,
 * removed to -1. One modify of the entry; throws what the directory throws.
 */
export async function msadAccountUpdate(
  p: Provider,
  dn: string,
  change: { enabled?: boolean; updatePassword?: 'added' | 'removed' },
): Promise<void> {
  if (!writableMsad(p) || (change.enabled === undefined && !change.updatePassword)) return;
  const current = await readAccount(p, dn);
  const next: { userAccountControl?: number; pwdLastSet?: number } = {};
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

/** MSADUserAccountControlStorageMapper#passwordUpdated: pwdLastSet -1, the password flags cleared (and ACCOUNTDISABLE for an enabled user). */
export async function msadPasswordUpdated(p: Provider, dn: string, user: Pick<UserModel, 'enabled'>): Promise<void> {
  if (!msadMapperOf(p.mappers)) return;
  const { userAccountControl: uac } = await readAccount(p, dn);
  let control = (uac ?? 0) & ~UAC.PASSWD_NOTREQD & ~UAC.PASSWORD_EXPIRED;
  if (user.enabled) control &= ~UAC.ACCOUNTDISABLE;
  await writeAccount(p, dn, { pwdLastSet: -1, userAccountControl: control });
}

/**
 * MSADUserAccountControlStorageMapper#processFailedPasswordUpdateException: AD refusing a new
 * password for its policy (result 53 or 19 with the Windows error 0000052D) is
 * `invalidPasswordGenericMessage`; anything else is undefined.
 */
export function msadPasswordRefusal(p: Provider, e: unknown): string | undefined {
  if (!msadMapperOf(p.mappers)) return undefined;
  const code = (e as { code?: number }).code;
  const message = String((e as Error).message ?? '').toUpperCase();
  return (code === 53 || code === 19) && /\b0*52D\b/.test(message) ? 'invalidPasswordGenericMessage' : undefined;
}

/** What a refused bind of a provider's user means, from AD's `AcceptSecurityContext error, data XXX` diagnostic. */
export type BindFailure = 'update-password' | 'disabled' | undefined;

/** MSADUserAccountControlStorageMapper#onAuthenticationFailure / processAuthErrorCode (WRITABLE providers only). */
export function msadBindFailure(p: Provider, username: string, diagnostic: string | undefined): BindFailure {
  if (!writableMsad(p) || !diagnostic) return undefined;
  const code = /AcceptSecurityContext error, data ([0-9a-f]*), v/i.exec(diagnostic)?.[1]?.toLowerCase();
  if (code === '532' || code === '773') return 'update-password';
  if (code === '533') return 'disabled';
  if (code === '775') log.warn(`Locked user '${username}' attempted to log in (LDAP provider ${p.cfg.name})`);
  return undefined;
}
