import type { ComponentModel } from '../../db/models/component';

/**
 * The settings of an `ldap` user-storage component, read from its config (LDAPConfig and
 * UserStorageProviderModel of Keycloak): connection, users subtree, edit mode, sync periods.
 */
export type EditMode = 'READ_ONLY' | 'WRITABLE' | 'UNSYNCED';

export interface LdapConfig {
  id: string;
  name: string;
  realmId: string;
  enabled: boolean;
  priority: number;
  connectionUrl: string;
  bindDn?: string;
  bindCredential?: string;
  authType: 'simple' | 'none';
  startTls: boolean;
  /** ms; 0 = none (the operating system's). */
  connectionTimeout: number;
  readTimeout: number;
  pooling: boolean;
  poolMaxSize: number;
  poolTimeout: number;
  usersDn: string;
  usernameAttribute: string;
  rdnAttribute: string;
  uuidAttribute: string;
  objectClasses: string[];
  customFilter?: string;
  /** '1' one level, '2' subtree. */
  searchScope: 'one' | 'sub';
  editMode: EditMode;
  importEnabled: boolean;
  syncRegistrations: boolean;
  pagination: boolean;
  batchSize: number;
  fullSyncPeriod: number;
  changedSyncPeriod: number;
  /** Seconds since the epoch of the last sync (Keycloak keeps it in the config, `lastSync`). */
  lastSync: number;
  trustEmail: boolean;
  usePasswordModifyExtendedOp: boolean;
  /** WRITABLE: check the realm's password policy before a new password goes to LDAP (off: the directory's own policy decides). */
  validatePasswordPolicy: boolean;
  /** `vendor` ad: Active Directory (passwords are written as `unicodePwd`, Keycloak's isActiveDirectory). */
  activeDirectory: boolean;
}

const first = (c: Record<string, string[]>, k: string) => c[k]?.[0];
const int = (v: string | undefined, dflt: number) => {
  const n = Number(v);
  return v !== undefined && v.trim() !== '' && Number.isFinite(n) ? Math.trunc(n) : dflt;
};
const bool = (v: string | undefined, dflt: boolean) => (v === undefined ? dflt : v.toLowerCase() === 'true');

/** The LDAP settings of a stored `ldap` component. */
export function ldapConfigOf(c: Pick<ComponentModel, 'id' | 'name' | 'realmId' | 'config'>): LdapConfig {
  const cfg = c.config ?? {};
  const username = first(cfg, 'usernameLDAPAttribute') ?? 'uid';
  const editMode = first(cfg, 'editMode');
  return {
    id: c.id,
    name: c.name,
    realmId: c.realmId,
    enabled: bool(first(cfg, 'enabled'), true),
    priority: int(first(cfg, 'priority'), 0),
    connectionUrl: first(cfg, 'connectionUrl') ?? '',
    bindDn: first(cfg, 'bindDn'),
    bindCredential: first(cfg, 'bindCredential'),
    authType: first(cfg, 'authType') === 'none' ? 'none' : 'simple',
    startTls: bool(first(cfg, 'startTls'), false),
    connectionTimeout: Math.max(0, int(first(cfg, 'connectionTimeout'), 0)),
    readTimeout: Math.max(0, int(first(cfg, 'readTimeout'), 0)),
    pooling: bool(first(cfg, 'connectionPooling'), true) && !bool(first(cfg, 'startTls'), false),
    poolMaxSize: Math.max(1, int(first(cfg, 'connectionPoolingMaxSize'), 10)),
    poolTimeout: Math.max(1000, int(first(cfg, 'connectionPoolingTimeout'), 300_000)),
    usersDn: first(cfg, 'usersDn') ?? '',
    usernameAttribute: username,
    rdnAttribute: first(cfg, 'rdnLDAPAttribute') ?? username,
    uuidAttribute: first(cfg, 'uuidLDAPAttribute') ?? 'entryUUID',
    objectClasses: (first(cfg, 'userObjectClasses') ?? 'inetOrgPerson, organizationalPerson')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    customFilter: first(cfg, 'customUserSearchFilter')?.trim() || undefined,
    searchScope: first(cfg, 'searchScope') === '2' ? 'sub' : 'one',
    editMode: editMode === 'WRITABLE' || editMode === 'UNSYNCED' ? editMode : 'READ_ONLY',
    importEnabled: bool(first(cfg, 'importEnabled'), true),
    syncRegistrations: bool(first(cfg, 'syncRegistrations'), false),
    pagination: bool(first(cfg, 'pagination'), true),
    batchSize: Math.max(1, int(first(cfg, 'batchSizeForSync'), 1000)),
    fullSyncPeriod: int(first(cfg, 'fullSyncPeriod'), -1),
    changedSyncPeriod: int(first(cfg, 'changedSyncPeriod'), -1),
    lastSync: int(first(cfg, 'lastSync'), 0),
    trustEmail: bool(first(cfg, 'trustEmail'), false),
    usePasswordModifyExtendedOp: bool(first(cfg, 'usePasswordModifyExtendedOp'), false),
    validatePasswordPolicy: bool(first(cfg, 'validatePasswordPolicy'), false),
    activeDirectory: first(cfg, 'vendor') === 'ad',
  };
}
