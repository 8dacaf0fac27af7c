import type { RealmModel } from '../db/models/realm';
import type { RoleModel } from '../db/models/role';
import { defaultRealmSettings } from '../keycloak/realm-defaults';
import { type Representation, representations } from './schema';
import type { SmtpServerRep } from './smtp';

/** Fields of RealmRepresentation that are accepted on input (settings, structure, legacy names). */
export const REALM_STRUCTURE_FIELDS = [
  'id',
  'realm',
  'enabled',
  'defaultRole',
  'defaultRoles',
  'defaultGroups',
  'users',
  'federatedUsers',
  'clients',
  'roles',
  'groups',
  'clientScopes',
  'defaultDefaultClientScopes',
  'defaultOptionalClientScopes',
  'authenticationFlows',
  'authenticatorConfig',
  'requiredActions',
  'components',
  'scopeMappings',
  'clientScopeMappings',
  'protocolMappers',
  'userFederationProviders',
  'userFederationMappers',
  'identityProviders',
  'identityProviderMappers',
  'localizationTexts',
  'keycloakVersion',
  'idserverVersion',
  'organizations',
  'oAuth2DeviceCodeLifespan',
  'oAuth2DevicePollingInterval',
  'adminPermissionsClient',
  'codeSecret',
  'passwordCredentialGrantAllowed',
  'social',
  'updateProfileOnInitialSocialLogin',
  'socialProviders',
  'applicationScopeMappings',
  'applications',
  'oauthClients',
  'clientTemplates',
  'certificate',
  'publicKey',
  'privateKey',
  'passwordPolicy',
  'loginTheme',
  'accountTheme',
  'adminTheme',
  'emailTheme',
  'defaultLocale',
  'maxSecondaryAuthFailures',
  'scimApiEnabled',
  'clientPolicies',
  'clientProfiles',
] as const;

/**
 * Fields of RealmRepresentation the GraphQL realm inputs leave out: the version stamps of an export,
 * what the server computes (`adminPermissionsClient`), the `oAuth2…` spellings of the `oauth2…`
 * fields, and the legacy fields the REST front accepts (a Keycloak export may carry them) and ignores.
 */
export const REALM_NOT_IN_GRAPHQL_INPUT = [
  'keycloakVersion',
  'idserverVersion',
  'adminPermissionsClient',
  'oAuth2DeviceCodeLifespan',
  'oAuth2DevicePollingInterval',
  'passwordCredentialGrantAllowed',
  'userCacheEnabled',
  'realmCacheEnabled',
  'privateKey',
  'publicKey',
  'certificate',
  'codeSecret',
  'defaultRoles',
  'federatedUsers',
  'userFederationProviders',
  'userFederationMappers',
  'organizations',
  'scimApiEnabled',
  'social',
  'updateProfileOnInitialSocialLogin',
  'socialProviders',
  'applicationScopeMappings',
  'applications',
  'oauthClients',
  'clientTemplates',
] as const;

/** Settings fields: every key of the defaults plus the optional ones above that are plain settings. */
export const SETTINGS_FIELDS = new Set([
  ...Object.keys(defaultRealmSettings()),
  'passwordPolicy',
  'loginTheme',
  'accountTheme',
  'adminTheme',
  'emailTheme',
  'defaultLocale',
  'maxSecondaryAuthFailures',
  'eventsExpiration',
]);

/** Every field of RealmRepresentation the server accepts: the keys of its table in schema.ts. */
export const KNOWN_REALM_FIELDS = new Set<string>(Object.keys(representations.RealmRepresentation));

/**
 * Fields of RealmRepresentation that GET /admin/realms/{realm} never returns: what a realm import
 * brings (collections, legacy key material and names), the version stamp of an export, and fields
 * the server accepts and ignores. Every other field of the table is part of the full representation
 * (and of the GraphQL `Realm` type).
 */
export const REALM_INPUT_ONLY_FIELDS = new Set<string>([
  'oAuth2DeviceCodeLifespan',
  'oAuth2DevicePollingInterval',
  'passwordCredentialGrantAllowed',
  'userCacheEnabled',
  'realmCacheEnabled',
  'privateKey',
  'publicKey',
  'certificate',
  'codeSecret',
  'roles',
  'groups',
  'defaultRoles',
  'adminPermissionsClient',
  'localizationTexts',
  'users',
  'federatedUsers',
  'scopeMappings',
  'clientScopeMappings',
  'clients',
  'clientScopes',
  'defaultDefaultClientScopes',
  'defaultOptionalClientScopes',
  'userFederationProviders',
  'userFederationMappers',
  'identityProviders',
  'identityProviderMappers',
  'protocolMappers',
  'components',
  'authenticationFlows',
  'authenticatorConfig',
  'requiredActions',
  'keycloakVersion',
  'idserverVersion',
  'organizations',
  'scimApiEnabled',
  'social',
  'updateProfileOnInitialSocialLogin',
  'socialProviders',
  'applicationScopeMappings',
  'applications',
  'oauthClients',
  'clientTemplates',
]);

type DefaultSettings = ReturnType<typeof defaultRealmSettings>;

/**
 * The realm settings kept in the `settings` column, typed from what a new realm gets
 * (src/keycloak/realm-defaults.ts), plus the optional settings a new realm does not get.
 */
export type RealmSettingsRep = { [K in keyof DefaultSettings]?: Exclude<DefaultSettings[K], undefined> | null } & {
  passwordPolicy?: string | null;
  loginTheme?: string | null;
  accountTheme?: string | null;
  adminTheme?: string | null;
  emailTheme?: string | null;
  defaultLocale?: string | null;
  maxSecondaryAuthFailures?: number | null;
  eventsExpiration?: number | null;
};

/** The `roles` of a realm representation: realm roles and, per clientId, client roles. */
export type RolesRep = {
  realm?: RoleRep[] | null;
  client?: Record<string, RoleRep[]> | null;
  application?: Record<string, RoleRep[]> | null;
};

/** Keycloak's ScopeMappingRepresentation (`scopeMappings`, `clientScopeMappings` of a realm representation). */
export type ScopeMappingRep = { self?: string; client?: string; clientTemplate?: string; clientScope?: string; roles?: string[] };

/** Keycloak's ComponentExportRepresentation: a component of a realm export, sub-components grouped by provider type. */
export type ComponentExportRep = {
  id?: string | null;
  name?: string | null;
  providerId?: string | null;
  subType?: string | null;
  subComponents?: Record<string, ComponentExportRep[]> | null;
  config?: Record<string, unknown> | null;
};

type RoleRep = Representation<'RoleRepresentation'>;
type StructureField = (typeof REALM_STRUCTURE_FIELDS)[number];

/**
 * Keycloak's RealmRepresentation: the settings, the realm's identity, and the nested collections a
 * realm import brings or a partial export writes. Its fields and their types are the
 * `RealmRepresentation` table of schema.ts (input is read against it in realm-settings.ts); this
 * type names what the services read of it, legacy fields the server accepts and ignores are `unknown`.
 */
export type RealmRepresentation = RealmSettingsRep & {
  id?: string | null;
  realm?: string | null;
  enabled?: boolean | string | null;
  smtpServer?: SmtpServerRep | null;
  defaultRole?: DefaultRoleRep | null;
  defaultGroups?: string[] | null;
  users?: Representation<'UserRepresentation'>[] | null;
  clients?: Representation<'ClientRepresentation'>[] | null;
  roles?: RolesRep | null;
  groups?: Representation<'GroupRepresentation'>[] | null;
  clientScopes?: Representation<'ClientScopeRepresentation'>[] | null;
  defaultDefaultClientScopes?: string[] | null;
  defaultOptionalClientScopes?: string[] | null;
  authenticationFlows?: Representation<'AuthenticationFlowRepresentation'>[] | null;
  authenticatorConfig?: Representation<'AuthenticatorConfigRepresentation'>[] | null;
  requiredActions?: Representation<'RequiredActionProviderRepresentation'>[] | null;
  components?: Record<string, ComponentExportRep[]> | null;
  scopeMappings?: ScopeMappingRep[] | null;
  clientScopeMappings?: Record<string, ScopeMappingRep[]> | null;
  identityProviders?: Representation<'IdentityProviderRepresentation'>[] | null;
  identityProviderMappers?: Representation<'IdentityProviderMapperRepresentation'>[] | null;
  localizationTexts?: Record<string, Record<string, string>> | null;
  oAuth2DeviceCodeLifespan?: number | null;
  oAuth2DevicePollingInterval?: number | null;
  keycloakVersion?: string | null;
} & { [K in StructureField]?: unknown };

/** The reduced realm representation of an admin without view-realm, and the name-only entry of the realm listing. */
export type ReducedRealmRep = Pick<
  RealmRepresentation,
  'realm' | 'displayName' | 'displayNameHtml' | 'supportedLocales' | 'bruteForceProtected' | 'defaultLocale' | 'registrationEmailAsUsername'
>;

const HIDDEN = new Set(['defaultRoleId', 'identityProviders', 'identityProviderMappers', 'localizationTexts']);

export interface DefaultRoleRep {
  id: string;
  name: string;
  description?: string;
  composite: boolean;
  clientRole: boolean;
  containerId: string;
}

/** The realm's default role (`default-roles-<realm>`) as the realm representation embeds it. */
export function toDefaultRoleRepresentation(role: RoleModel, realm: RealmModel): DefaultRoleRep {
  return {
    id: role.id,
    name: role.name,
    ...(role.description ? { description: role.description } : {}),
    composite: true,
    clientRole: false,
    containerId: realm.id,
  };
}

/** Full realm representation (GET /admin/realms/{realm}); secrets of smtpServer masked. */
export function toRealmRepresentation(
  realm: RealmModel,
  extra: { defaultRole?: DefaultRoleRep; defaultGroups?: string[] } = {},
): RealmRepresentation {
  const settings = Object.entries(realm.settings).filter(
    ([k, v]) => !HIDDEN.has(k) && v !== undefined && v !== null && !(k === 'supportedLocales' && Array.isArray(v) && v.length === 0),
  );
  // The settings column holds what the representation's settings were (realm-settings.ts picks them).
  const out: RealmRepresentation = { id: realm.id, realm: realm.name, ...(Object.fromEntries(settings) as RealmSettingsRep) };
  out.enabled = realm.enabled;
  if (out.smtpServer && typeof out.smtpServer === 'object') {
    const smtp = { ...out.smtpServer };
    if (smtp.password) smtp.password = '**********';
    out.smtpServer = smtp;
  }
  if (extra.defaultRole) out.defaultRole = extra.defaultRole;
  if (extra.defaultGroups?.length) out.defaultGroups = extra.defaultGroups;
  return out;
}

/** Brief realm representation (GET /admin/realms?briefRepresentation=true). */
export function toBriefRealmRepresentation(realm: RealmModel): RealmRepresentation {
  const s = realm.settings as RealmSettingsRep;
  const out: RealmRepresentation = { id: realm.id, realm: realm.name };
  if (s.displayName) out.displayName = s.displayName;
  if (s.displayNameHtml) out.displayNameHtml = s.displayNameHtml;
  out.enabled = realm.enabled;
  return out;
}

/**
 * The reduced realm representation an admin without view-realm gets (GET /admin/realms/{realm}):
 * display names, locales, brute-force flag; `registrationEmailAsUsername` only for user viewers.
 */
export function toReducedRealmRepresentation(realm: RealmModel, viewUsers: boolean): ReducedRealmRep {
  const s = realm.settings as RealmSettingsRep;
  const out: ReducedRealmRep = { realm: realm.name };
  if (s.displayName) out.displayName = s.displayName;
  if (s.displayNameHtml) out.displayNameHtml = s.displayNameHtml;
  out.supportedLocales = s.supportedLocales ?? [];
  out.bruteForceProtected = s.bruteForceProtected ?? false;
  if (s.defaultLocale) out.defaultLocale = s.defaultLocale;
  if (viewUsers) out.registrationEmailAsUsername = s.registrationEmailAsUsername ?? false;
  return out;
}
