import type { RealmModel } from '../db/models/realm';
import type { RoleModel } from '../db/models/role';
import { defaultRealmSettings } from '../keycloak/realm-defaults';

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
];

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

export const KNOWN_REALM_FIELDS = new Set([...REALM_STRUCTURE_FIELDS, ...SETTINGS_FIELDS]);

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
): Record<string, unknown> {
  const s = realm.settings;
  const out: Record<string, unknown> = { id: realm.id, realm: realm.name };
  for (const [k, v] of Object.entries(s)) {
    if (HIDDEN.has(k) || v === undefined || v === null) continue;
    if (k === 'supportedLocales' && Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  out.enabled = realm.enabled;
  if (out.smtpServer && typeof out.smtpServer === 'object') {
    const smtp = { ...(out.smtpServer as Record<string, unknown>) };
    if (smtp.password) smtp.password = '**********';
    out.smtpServer = smtp;
  }
  if (extra.defaultRole) out.defaultRole = extra.defaultRole;
  if (extra.defaultGroups?.length) out.defaultGroups = extra.defaultGroups;
  return out;
}

/** Brief realm representation (GET /admin/realms?briefRepresentation=true). */
export function toBriefRealmRepresentation(realm: RealmModel): Record<string, unknown> {
  const s = realm.settings;
  const out: Record<string, unknown> = { id: realm.id, realm: realm.name };
  if (s.displayName) out.displayName = s.displayName;
  if (s.displayNameHtml) out.displayNameHtml = s.displayNameHtml;
  out.enabled = realm.enabled;
  return out;
}

/**
 * The reduced realm representation an admin without view-realm gets (GET /admin/realms/{realm}):
 * display names, locales, brute-force flag; `registrationEmailAsUsername` only for user viewers.
 */
export function toReducedRealmRepresentation(realm: RealmModel, viewUsers: boolean): Record<string, unknown> {
  const s = realm.settings;
  const out: Record<string, unknown> = { realm: realm.name };
  if (s.displayName) out.displayName = s.displayName;
  if (s.displayNameHtml) out.displayNameHtml = s.displayNameHtml;
  out.supportedLocales = s.supportedLocales ?? [];
  out.bruteForceProtected = s.bruteForceProtected ?? false;
  if (s.defaultLocale) out.defaultLocale = s.defaultLocale;
  if (viewUsers) out.registrationEmailAsUsername = s.registrationEmailAsUsername ?? false;
  return out;
}
