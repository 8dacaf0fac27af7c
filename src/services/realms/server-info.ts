import { arch, cpus, release, type as osType, userInfo } from 'node:os';
import { actorRoleIds } from '../user-storage/transient-users';
import { dirname } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { Op } from 'sequelize';
import { MASTER } from '../../auth/permissions';
import { forbidden } from '../../core/errors';
import {
  AUTHENTICATORS,
  CLIENT_AUTHENTICATORS,
  FORM_ACTIONS,
  FORM_PROVIDERS,
  REQUIRED_ACTION_PROVIDERS,
} from '../../keycloak/authenticator-providers';
import { ACTING_CONDITIONS, ACTING_EXECUTORS, clientPolicyComponentTypes } from '../client-policies/catalogue';
import { allComponentTypes } from '../components/types';
import type { MemoryInfoRep, ServerInfoRep, SpiInfoRep, SystemInfoRep } from '../../representations/server-info';
import type { RequestContext } from '../../core/context';
import { EVENT_LISTENERS, EVENT_TYPES, OPERATION_TYPES, RESOURCE_TYPES } from '../../keycloak/event-types';
import { serverInfoIdentityProviders, serverInfoSocialProviders } from '../../keycloak/identity-provider-types';
import { MAPPER_TYPES, protocolMapperTypes } from '../../keycloak/mapper-types';
import { POLICY_TYPES } from '../../keycloak/password-policy-types';
import { ALL_REALM_ROLES, builtInScopeMappers } from '../../keycloak/realm-defaults';
import {
  COMPATIBLE_KEYCLOAK_VERSION,
  clientInstallations,
  cryptoInfo,
  features,
  passwordPolicies,
  profileInfo,
  themes,
} from '../../keycloak/server-info-catalogues';

/**
 * `GET /admin/serverinfo` (config reference §11): what the server offers, filled from the real
 * catalogues (mapper types, component types, authenticators, identity providers, password
 * policies, event types) plus system and memory information. Any admin of any realm may read it.
 */
const STARTED = Date.now();
const ADMIN_ROLE_NAMES = new Set<string>([...ALL_REALM_ROLES, 'impersonation', 'realm-admin', 'create-client']);

/** Keycloak's `isAdmin()` for serverinfo: the caller holds some admin role (master `admin`/`create-realm` or a role of an admin client). */
async function requireAnyAdmin(ctx: RequestContext): Promise<void> {
  const actor = ctx.actor;
  if (!actor) return;
  const roleIds = [...(await actorRoleIds(ctx))];
  if (!roleIds.length) throw forbidden();
  const m = ctx.db.models;
  const roles = await m.Role.findAll({ where: { id: { [Op.in]: roleIds } }, attributes: ['id', 'name', 'clientId'] });
  if (actor.realmName === MASTER && roles.some((r) => !r.clientId && (r.name === 'admin' || r.name === 'create-realm'))) return;
  const adminClients = await m.Client.findAll({
    where: { realmId: actor.realmId, clientId: actor.realmName === MASTER ? { [Op.like]: '%-realm' } : 'realm-management' },
    attributes: ['id'],
  });
  const clientIds = new Set(adminClients.map((c) => c.id));
  if (!roles.some((r) => r.clientId && clientIds.has(r.clientId) && ADMIN_ROLE_NAMES.has(r.name))) throw forbidden();
}

/** Java's Date.toString: `Sun Nov 22 00:01:32 UTC 2026`. */
function javaDate(d: Date): string {
  const [wd, day, mon, year, time] = d.toUTCString().replace(',', '').split(' ');
  return `${wd} ${mon} ${day} ${time} UTC ${year}`;
}

function uptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 86400)} days, ${Math.floor((s % 86400) / 3600)} hours, ${Math.floor((s % 3600) / 60)} minutes, ${s % 60} seconds`;
}

function systemInfo(): SystemInfoRep {
  const now = Date.now();
  let userName: string | undefined;
  try {
    userName = userInfo().username;
  } catch {
    userName = undefined;
  }
  const intl = Intl.DateTimeFormat().resolvedOptions();
  return {
    version: COMPATIBLE_KEYCLOAK_VERSION,
    serverTime: javaDate(new Date(now)),
    uptime: uptime(now - STARTED),
    uptimeMillis: now - STARTED,
    javaVersion: process.versions.node,
    javaVendor: 'Node.js',
    javaVm: 'V8',
    javaVmVersion: process.versions.v8,
    javaRuntime: `Node.js ${process.version}`,
    javaHome: dirname(process.execPath),
    osName: osType(),
    osArchitecture: arch(),
    osVersion: release(),
    fileEncoding: 'UTF-8',
    ...(userName ? { userName } : {}),
    userDir: process.cwd(),
    userTimezone: intl.timeZone,
    userLocale: intl.locale,
  };
}

const mb = (bytes: number) => `${Math.floor(bytes / 1024 / 1024)} MB`;

function memoryInfo(): MemoryInfoRep {
  const heap = getHeapStatistics();
  const total = heap.heap_size_limit;
  const used = heap.used_heap_size;
  const free = total - used;
  return {
    total,
    totalFormated: mb(total),
    used,
    usedFormated: mb(used),
    free,
    freePercentage: Math.floor((free * 100) / total),
    freeFormated: mb(free),
  };
}

const spi = (ids: string[], internal = false): SpiInfoRep => ({
  internal,
  providers: Object.fromEntries(ids.map((id) => [id, { order: 0 }])),
});

/** serverinfo `providers`: SPI name → its provider ids. */
function providers(componentTypes: Record<string, Array<{ id: string }>>): Record<string, SpiInfoRep> {
  const ids = (spiName: string) => (componentTypes[spiName] ?? []).map((t) => t.id);
  return {
    authenticator: spi(AUTHENTICATORS.map((a) => a.id)),
    'client-authenticator': spi(CLIENT_AUTHENTICATORS.map((a) => a.id)),
    'client-policy-condition': spi(ACTING_CONDITIONS),
    'client-policy-executor': spi(ACTING_EXECUTORS),
    'client-installation': spi(Object.values(clientInstallations()).flatMap((l) => l.map((i) => String(i.id)))),
    'client-registration-policy': spi(ids('org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy')),
    eventsListener: spi([...EVENT_LISTENERS]),
    'form-action': spi(FORM_ACTIONS.map((a) => a.id)),
    'form-authenticator': spi(FORM_PROVIDERS.map((a) => a.id)),
    hash: spi(['argon2', 'pbkdf2', 'pbkdf2-sha256', 'pbkdf2-sha512']),
    identity_provider: spi(
      serverInfoIdentityProviders()
        .filter((p) => p.groupName !== 'Social')
        .map((p) => p.id),
    ),
    keys: spi(ids('org.keycloak.keys.KeyProvider')),
    'ldap-mapper': spi(ids('org.keycloak.storage.ldap.mappers.LDAPStorageMapper')),
    'login-protocol': { internal: false, providers: { 'openid-connect': { order: 100 }, saml: { order: 0 } } },
    'password-policy': spi(Object.keys(POLICY_TYPES)),
    'protocol-mapper': spi(MAPPER_TYPES.map((t) => t.id)),
    'required-action': spi(REQUIRED_ACTION_PROVIDERS.map((a) => a.providerId)),
    social: spi(serverInfoSocialProviders().map((p) => p.id)),
    storage: spi(ids('org.keycloak.storage.UserStorageProvider')),
    'user-profile': spi(ids('org.keycloak.userprofile.UserProfileProvider')),
    // How a reverse proxy's client certificate is read (--spi-x509cert-lookup-provider, ADR 0038).
    'x509cert-lookup': spi(['apache', 'default', 'envoy', 'haproxy', 'nginx']),
  };
}

/** serverinfo `builtinProtocolMappers`: the mapper templates of the built-in scopes, by protocol, one per name. */
function builtinProtocolMappers(): ServerInfoRep['builtinProtocolMappers'] {
  const out: ServerInfoRep['builtinProtocolMappers'] = { 'openid-connect': [], saml: [] };
  const seen = new Set<string>();
  for (const list of Object.values(builtInScopeMappers())) {
    for (const mapper of list) {
      const key = `${mapper.protocol}:${mapper.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out[mapper.protocol].push({
        name: mapper.name,
        protocol: mapper.protocol,
        protocolMapper: mapper.protocolMapper,
        consentRequired: false,
        config: { ...mapper.config },
      });
    }
  }
  return out;
}

/** serverinfo `componentTypes`: the component catalogue plus configurable authenticators and protocol mappers. */
function componentTypes(): ServerInfoRep['componentTypes'] {
  return {
    ...allComponentTypes(),
    ...clientPolicyComponentTypes(),
    'org.keycloak.authentication.Authenticator': [...AUTHENTICATORS, ...FORM_PROVIDERS]
      .filter((a) => a.properties.length)
      .map((a) => ({ id: a.id, helpText: a.description, properties: a.properties, metadata: {} })),
    'org.keycloak.protocol.ProtocolMapper': MAPPER_TYPES.map((t) => ({
      id: t.id,
      helpText: t.helpText,
      properties: t.properties,
      metadata: {},
    })),
  };
}

/** GET /admin/serverinfo: the whole ServerInfoRepresentation (any admin). */
export async function getServerInfo(ctx: RequestContext): Promise<ServerInfoRep> {
  await requireAnyAdmin(ctx);
  const types = componentTypes();
  return {
    systemInfo: systemInfo(),
    memoryInfo: memoryInfo(),
    cpuInfo: { processorCount: cpus().length },
    profileInfo: profileInfo(),
    features: features(),
    cryptoInfo: cryptoInfo(),
    themes: themes(),
    socialProviders: serverInfoSocialProviders(),
    identityProviders: serverInfoIdentityProviders(),
    providers: providers(types),
    protocolMapperTypes: protocolMapperTypes(),
    builtinProtocolMappers: builtinProtocolMappers(),
    clientInstallations: clientInstallations(),
    componentTypes: types,
    passwordPolicies: passwordPolicies(),
    enums: {
      eventType: [...EVENT_TYPES].sort(),
      operationType: [...OPERATION_TYPES].sort(),
      resourceType: [...RESOURCE_TYPES].sort(),
    },
  };
}
