import type { ConfigPropertyRep } from '../../representations/config-property';
import { type ChildComponent, type ComponentDraft, type ComponentFactory, LDAP_MAPPER_TYPE, invalidConfig, prop } from './config';

/**
 * User federation components (config reference §6.4): the `ldap` and `kerberos` user storage
 * providers with Keycloak's config validation and messages, the LDAP default mappers created with
 * an `ldap` component, and the LDAPStorageMapper factories listed as its sub-component types. LDAP
 * providers connect through src/services/user-storage/ (ADR 33); Kerberos is stored only.
 */
const S = 'String';
const B = 'boolean';
const p = (name: string, type: string, defaultValue?: string, extra: Partial<ConfigPropertyRep> = {}): ConfigPropertyRep =>
  prop(name, name, '', type, { ...(defaultValue !== undefined ? { defaultValue } : {}), ...extra });

/** `getCommonProviderConfigProperties` of user storage providers. */
const COMMON: ConfigPropertyRep[] = [
  p('enabled', B, 'true'),
  p('priority', S, '0'),
  p('cachePolicy', 'List', 'DEFAULT', { options: ['DEFAULT', 'EVICT_DAILY', 'EVICT_WEEKLY', 'MAX_LIFESPAN', 'NO_CACHE'] }),
  p('evictionDay', S),
  p('evictionHour', S),
  p('evictionMinute', S),
  p('maxLifespan', S),
  p('fullSyncPeriod', S, '-1'),
  p('changedSyncPeriod', S, '-1'),
  p('batchSizeForSync', S),
];

const LDAP_PROPS: ConfigPropertyRep[] = [
  p('editMode', S),
  p('importEnabled', B, 'true'),
  p('syncRegistrations', B, 'false'),
  p('vendor', S),
  p('usePasswordModifyExtendedOp', B),
  p('usernameLDAPAttribute', S),
  p('rdnLDAPAttribute', S),
  p('uuidLDAPAttribute', S),
  p('userObjectClasses', S),
  p('connectionUrl', S),
  p('usersDn', S),
  p('relativeCreateDn', S),
  p('authType', S, 'simple'),
  p('startTls', B),
  p('bindDn', S),
  p('bindCredential', 'Password', undefined, { secret: true }),
  p('customUserSearchFilter', S),
  p('searchScope', S, '1'),
  p('validatePasswordPolicy', B, 'false'),
  p('trustEmail', B, 'false'),
  p('useTruststoreSpi', S, 'always'),
  p('connectionPooling', B, 'true'),
  p('connectionPoolingAuthentication', S),
  p('connectionPoolingDebug', S),
  p('connectionPoolingInitSize', S),
  p('connectionPoolingMaxSize', S),
  p('connectionPoolingPrefSize', S),
  p('connectionPoolingProtocol', S),
  p('connectionPoolingTimeout', S),
  p('connectionTimeout', S),
  p('readTimeout', S),
  p('pagination', B, 'true'),
  p('referral', S),
  p('allowKerberosAuthentication', B, 'false'),
  p('serverPrincipal', S),
  p('keyTab', S),
  p('kerberosRealm', S),
  p('krbPrincipalAttribute', S),
  p('debug', B, 'false'),
  p('useKerberosForPasswordAuthentication', B, 'false'),
  p('connectionTrace', B, 'false'),
];

const first = (d: ComponentDraft, key: string) => d.config[key]?.[0];
const isTrue = (v: string | undefined) => v?.toLowerCase() === 'true';
const notNumber = (v: string | undefined) => v !== undefined && v !== '' && !/^[+-]?\d{1,18}$/.test(v);

/** LDAPStorageProviderFactory.validateConfiguration, with the English texts of its message keys. */
function validateLdap(d: ComponentDraft): void {
  const filter = first(d, 'customUserSearchFilter')?.trim();
  if (filter && !(filter.startsWith('(') && filter.endsWith(')'))) {
    throw invalidConfig('Custom User LDAP Filter must start with "(" and end with ")"');
  }
  if (notNumber(first(d, 'connectionTimeout'))) throw invalidConfig('Connection Timeout must be a number');
  if (notNumber(first(d, 'readTimeout'))) throw invalidConfig('Read Timeout must be a number');
  if (isTrue(first(d, 'startTls')) && first(d, 'connectionPooling') !== undefined) {
    throw invalidConfig('Can not enable both StartTLS and connection pooling.');
  }
  const editMode = first(d, 'editMode');
  if (editMode === undefined) throw invalidConfig('Edit Mode is mandatory');
  if (editMode !== 'WRITABLE' && isTrue(first(d, 'validatePasswordPolicy'))) {
    throw invalidConfig('Validate Password Policy is applicable only with WRITABLE edit mode');
  }
  if (first(d, 'importEnabled') === 'false' && editMode === 'UNSYNCED') {
    throw invalidConfig('Can not disable Importing users when LDAP provider mode is UNSYNCED');
  }
}

/** LDAPStorageProviderFactory.onCreate: the default attribute mappers for the LDAP config. */
function ldapDefaultMappers(d: ComponentDraft): ChildComponent[] {
  const ad = first(d, 'vendor') === 'ad';
  const editMode = first(d, 'editMode');
  const readOnly = String(editMode === 'READ_ONLY' || editMode === 'UNSYNCED');
  const alwaysRead = String(editMode === 'READ_ONLY' || editMode === 'WRITABLE');
  const username = first(d, 'usernameLDAPAttribute') ?? (ad ? 'cn' : 'uid');
  let rdn = first(d, 'rdnLDAPAttribute') ?? username;
  if (!first(d, 'rdnLDAPAttribute') && rdn.toLowerCase() === 'samaccountname') rdn = 'cn';
  const mapper = (name: string, providerId: string, config: Record<string, string> = {}): ChildComponent => ({
    name,
    parentId: d.id,
    providerId,
    providerType: LDAP_MAPPER_TYPE,
    subType: null,
    config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, [v]])),
  });
  const attr = (name: string, model: string, ldap: string, ro: string, always: string, mandatory: string) =>
    mapper(name, 'user-attribute-ldap-mapper', {
      'user.model.attribute': model,
      'ldap.attribute': ldap,
      'read.only': ro,
      'always.read.value.from.ldap': always,
      'is.mandatory.in.ldap': mandatory,
    });
  const out = [attr('username', 'username', username, readOnly, 'false', 'true')];
  if (rdn.toLowerCase() === 'cn') {
    if (username.toLowerCase() === 'cn') out.push(attr('first name', 'firstName', 'givenName', readOnly, alwaysRead, 'true'));
    else if (editMode === 'WRITABLE') {
      out.push(attr('first name', 'firstName', 'givenName', readOnly, alwaysRead, 'true'));
      out.push(attr('username-cn', 'username', 'cn', readOnly, 'false', 'true'));
    } else
      out.push(
        mapper('full name', 'full-name-ldap-mapper', { 'ldap.full.name.attribute': 'cn', 'read.only': readOnly, 'write.only': 'false' }),
      );
  } else out.push(attr('first name', 'firstName', 'cn', readOnly, alwaysRead, 'true'));
  out.push(attr('last name', 'lastName', 'sn', readOnly, alwaysRead, 'true'));
  out.push(attr('email', 'email', 'mail', readOnly, 'false', 'false'));
  out.push(attr('creation date', 'createTimestamp', ad ? 'whenCreated' : 'createTimestamp', 'true', alwaysRead, 'false'));
  out.push(attr('modify date', 'modifyTimestamp', ad ? 'whenChanged' : 'modifyTimestamp', 'true', alwaysRead, 'false'));
  if (ad) out.push(mapper('MSAD account controls', 'msad-user-account-control-mapper'));
  return out;
}

/** The user storage providers: `ldap` (the `kerberos` one goes with the KERBEROS feature, off here: server-info-catalogues.ts). */
export const USER_STORAGE_FACTORIES: ComponentFactory[] = [
  { id: 'ldap', helpText: 'LDAP', common: COMMON, properties: LDAP_PROPS, validate: validateLdap, children: ldapDefaultMappers },
];

const USER_ATTR_PROPS = [
  p('user.model.attribute', S),
  p('ldap.attribute', S),
  p('read.only', B),
  p('always.read.value.from.ldap', B),
  p('is.mandatory.in.ldap', B),
  p('attribute.default.value', S),
  p('is.binary.attribute', B),
  p('attribute.force.default', B),
];
const MEMBERSHIP_PROPS = [
  p('membership.ldap.attribute', S),
  p('membership.attribute.type', 'List', 'DN', { options: ['DN', 'UID'] }),
  p('membership.user.ldap.attribute', S),
  p('mode', 'List', 'READ_ONLY', { options: ['READ_ONLY', 'LDAP_ONLY', 'IMPORT'] }),
  p('user.roles.retrieve.strategy', 'List', 'LOAD_GROUPS_BY_MEMBER_ATTRIBUTE', {
    options: ['LOAD_GROUPS_BY_MEMBER_ATTRIBUTE', 'GET_GROUPS_FROM_USER_MEMBEROF_ATTRIBUTE', 'LOAD_GROUPS_BY_MEMBER_ATTRIBUTE_RECURSIVELY'],
  }),
  p('memberof.ldap.attribute', S, 'memberOf'),
];
const mapperFactory = (
  id: string,
  helpText: string,
  properties: ConfigPropertyRep[] = [],
  validate?: ComponentFactory['validate'],
): ComponentFactory => ({ id, helpText, properties, ...(validate ? { validate } : {}) });

/** UserAttributeLDAPStorageMapperFactory.validateConfiguration: a binary attribute is always read from LDAP. */
function validateAttributeMapper(d: ComponentDraft): void {
  if (isTrue(first(d, 'is.binary.attribute')) && !isTrue(first(d, 'always.read.value.from.ldap')))
    throw invalidConfig("With Binary attribute enabled, the 'Always read value from LDAP' must be enabled too");
}

/** CertificateLDAPStorageMapperFactory.validateConfiguration: a DER certificate is a binary attribute. */
function validateCertificateMapper(d: ComponentDraft): void {
  validateAttributeMapper(d);
  if (isTrue(first(d, 'is.der.formatted')) && !isTrue(first(d, 'is.binary.attribute')))
    throw invalidConfig("With DER formatted certificate enabled, the 'Is Binary Attribute' option must be enabled too");
}

/** LDAPStorageMapper factories, ordered by id. */
export const LDAP_MAPPER_FACTORIES: ComponentFactory[] = [
  mapperFactory(
    'certificate-ldap-mapper',
    'Used to map single attribute which contains a certificate from LDAP user to attribute of UserModel in Keycloak DB',
    [...USER_ATTR_PROPS, p('is.der.formatted', B)],
    validateCertificateMapper,
  ),
  mapperFactory(
    'full-name-ldap-mapper',
    "Used to map full-name of user from single attribute in LDAP (usually 'cn' attribute) to firstName and lastName attributes of UserModel in Keycloak DB",
    [p('ldap.full.name.attribute', S, 'cn'), p('read.only', B), p('write.only', B)],
  ),
  mapperFactory('group-ldap-mapper', 'Used to map group mappings of groups from some LDAP DN to Keycloak group mappings', [
    p('groups.dn', S),
    p('group.name.ldap.attribute', S, 'cn'),
    p('group.object.classes', S, 'groupOfNames'),
    p('preserve.group.inheritance', B, 'true'),
    p('ignore.missing.groups', B, 'false'),
    ...MEMBERSHIP_PROPS,
    p('groups.ldap.filter', S),
    p('mapped.group.attributes', S),
    p('drop.non.existing.groups.during.sync', B, 'false'),
    p('groups.path', S, '/'),
  ]),
  mapperFactory(
    'hardcoded-attribute-mapper',
    'This mapper will hardcode any model user attribute and some property (like emailVerified or enabled) when importing user from ldap.',
    [p('user.model.attribute', S), p('attribute.value', S)],
  ),
  mapperFactory(
    'hardcoded-ldap-attribute-mapper',
    'This mapper is supported just if syncRegistrations is enabled. When new user is registered in Keycloak, he will be written to the LDAP with the hardcoded value of some specified attribute.',
    [p('ldap.attribute.name', S), p('ldap.attribute.value', S)],
  ),
  mapperFactory(
    'hardcoded-ldap-group-mapper',
    'When user is imported from LDAP, he will be automatically added into this configured group.',
    [p('group', S)],
  ),
  mapperFactory(
    'hardcoded-ldap-role-mapper',
    'When user is imported from LDAP, he will be automatically added into this configured role.',
    [p('role', 'Role')],
  ),
  mapperFactory('kerberos-principal-attribute-mapper', 'Mapper to map the Kerberos principal from LDAP to user attribute.'),
  mapperFactory(
    'msad-lds-user-account-control-mapper',
    "Mapper specific to MSAD LDS. It's able to integrate the MSAD LDS user account state into Keycloak account state (account enabled, password is expired etc).",
    [p('password.policy.hints.enabled', B)],
  ),
  mapperFactory(
    'msad-user-account-control-mapper',
    "Mapper specific to MSAD. It's able to integrate the MSAD user account state into Keycloak account state (account enabled, password is expired etc).",
    // MSADUserAccountControlStorageMapper.LDAP_PASSWORD_POLICY_HINTS_ENABLED.
    [p('ldap.password.policy.hints.enabled', B, 'false')],
  ),
  mapperFactory(
    'role-ldap-mapper',
    'Used to map role mappings of roles from some LDAP DN to Keycloak role mappings of either realm roles or client roles of particular client',
    [
      p('roles.dn', S),
      p('role.name.ldap.attribute', S, 'cn'),
      p('role.object.classes', S, 'groupOfNames'),
      ...MEMBERSHIP_PROPS,
      p('roles.ldap.filter', S),
      p('use.realm.roles.mapping', B, 'true'),
      p('client.id', 'ClientList'),
    ],
  ),
  mapperFactory(
    'user-attribute-ldap-mapper',
    'Used to map single attribute from LDAP user to attribute of UserModel in Keycloak DB',
    USER_ATTR_PROPS,
    validateAttributeMapper,
  ),
];
