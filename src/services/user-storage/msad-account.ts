/**
 * The account-control facts of an Active Directory (or AD LDS) entry as the MSAD account-control
 * mappers read them (msad.ts has the mappers' behaviour); no imports, so that the entry mapping can use it.
 */
export const MSAD_MAPPER = 'msad-user-account-control-mapper';
export const MSAD_LDS_MAPPER = 'msad-lds-user-account-control-mapper';
export type AccountKind = 'ad' | 'lds';

/** The mapper's kind: AD (userAccountControl flags) or AD LDS (msDS-User* booleans); undefined for other mappers. */
export const accountKindOf = (providerId: string): AccountKind | undefined =>
  providerId === MSAD_MAPPER ? 'ad' : providerId === MSAD_LDS_MAPPER ? 'lds' : undefined;

export const LDS = {
  DISABLED: 'msDS-UserAccountDisabled',
  PASSWORD_EXPIRED: 'msDS-UserPasswordExpired',
  PASSWORD_NOT_REQUIRED: 'msDS-UserPasswordNotRequired',
} as const;

/** The entry attributes each kind reads. */
export const ACCOUNT_ATTRIBUTES: Record<AccountKind, string[]> = {
  ad: ['userAccountControl', 'pwdLastSet'],
  lds: ['pwdLastSet', LDS.DISABLED, LDS.PASSWORD_EXPIRED, LDS.PASSWORD_NOT_REQUIRED],
};

/** userAccountControl flags (Keycloak's UserAccountControl). */
export const UAC = { ACCOUNTDISABLE: 0x2, PASSWD_NOTREQD: 0x20, NORMAL_ACCOUNT: 0x200, PASSWORD_EXPIRED: 0x800000 } as const;

/** The account-control facts of an entry, as userOfEntry keeps them on the LDAP user. */
export interface AccountControl {
  kind: AccountKind;
  /** AD: undefined when the entry has no userAccountControl. */
  userAccountControl?: number;
  /** undefined when the entry has no pwdLastSet (read as 0, as Keycloak's getPwdLastSet). */
  pwdLastSet?: number;
  /** AD LDS: msDS-UserAccountDisabled, msDS-UserPasswordExpired, msDS-UserPasswordNotRequired are TRUE. */
  ldsDisabled?: boolean;
  ldsPasswordExpired?: boolean;
  ldsPasswordNotRequired?: boolean;
}

const num = (v: string | undefined) => (v === undefined || v.trim() === '' || !Number.isFinite(Number(v)) ? undefined : Number(v));
/** Java's Boolean.parseBoolean: only `true`, in any case. */
const bool = (v: string | undefined) => v?.toLowerCase() === 'true';

/** The facts from an entry's attribute values (first values). */
export function accountControlOf(kind: AccountKind, values: (attr: string) => string[]): AccountControl {
  const pwdLastSet = num(values('pwdLastSet')[0]);
  if (kind === 'ad') return { kind, userAccountControl: num(values('userAccountControl')[0]), pwdLastSet };
  return {
    kind,
    pwdLastSet,
    ldsDisabled: bool(values(LDS.DISABLED)[0]),
    ldsPasswordExpired: bool(values(LDS.PASSWORD_EXPIRED)[0]),
    ldsPasswordNotRequired: bool(values(LDS.PASSWORD_NOT_REQUIRED)[0]),
  };
}

export const hasFlag = (uac: number | undefined, flag: number) => uac !== undefined && (uac & flag) !== 0;

/**
 * The `enabled` an entry gives the user: AD (onImportUserFromLDAP) enabled unless ACCOUNTDISABLE is
 * set; AD LDS (its delegate's isEnabled, Keycloak's and the entry's flag merged) false when
 * msDS-UserAccountDisabled is TRUE on an account with a password set (pwdLastSet > 0), else
 * undefined: the local flag stands.
 */
export const enabledOf = (a: AccountControl): boolean | undefined =>
  a.kind === 'ad' ? !hasFlag(a.userAccountControl, UAC.ACCOUNTDISABLE) : (a.pwdLastSet ?? 0) > 0 && a.ldsDisabled ? false : undefined;

/** WRITABLE: whether the directory asks for a new password (pwdLastSet 0 or absent, or the password expired). */
export const mustChangePassword = (a: AccountControl): boolean =>
  (a.pwdLastSet ?? 0) === 0 || (a.kind === 'ad' ? hasFlag(a.userAccountControl, UAC.PASSWORD_EXPIRED) : Boolean(a.ldsPasswordExpired));
