/**
 * The account-control facts of an Active Directory entry as the MSAD account-control mapper reads
 * them (msad.ts has the mapper's behaviour); no imports, so that the entry mapping can use it.
 */
export const MSAD_MAPPER = 'msad-user-account-control-mapper';
export const MSAD_ATTRIBUTES = ['userAccountControl', 'pwdLastSet'];

/** userAccountControl flags (Keycloak's UserAccountControl). */
export const UAC = { ACCOUNTDISABLE: 0x2, PASSWD_NOTREQD: 0x20, NORMAL_ACCOUNT: 0x200, PASSWORD_EXPIRED: 0x800000 } as const;

/** The account-control facts of an entry, as userOfEntry keeps them on the LDAP user. */
export interface AccountControl {
  /** undefined when the entry has no userAccountControl. */
  userAccountControl?: number;
  /** undefined when the entry has no pwdLastSet (read as 0, as Keycloak's getPwdLastSet). */
  pwdLastSet?: number;
}

const num = (v: string | undefined) => (v === undefined || v.trim() === '' || !Number.isFinite(Number(v)) ? undefined : Number(v));

/** The facts from an entry's attribute values (first values). */
export function accountControlOf(values: (attr: string) => string[]): AccountControl {
  return { userAccountControl: num(values('userAccountControl')[0]), pwdLastSet: num(values('pwdLastSet')[0]) };
}

export const hasFlag = (uac: number | undefined, flag: number) => uac !== undefined && (uac & flag) !== 0;

/** onImportUserFromLDAP: the user is enabled unless ACCOUNTDISABLE is set. */
export const enabledOf = (a: AccountControl): boolean => !hasFlag(a.userAccountControl, UAC.ACCOUNTDISABLE);

/** WRITABLE: whether AD asks for a new password (pwdLastSet 0 or absent, or PASSWORD_EXPIRED). */
export const mustChangePassword = (a: AccountControl): boolean =>
  (a.pwdLastSet ?? 0) === 0 || hasFlag(a.userAccountControl, UAC.PASSWORD_EXPIRED);
