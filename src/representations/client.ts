import type { ClientModel, ProtocolMapperModel } from '../db/models/client';
import { toProtocolMapperRepresentation } from './protocol-mapper';
import type { Representation } from './schema';

export type ClientRepresentation = Representation<'ClientRepresentation'>;

/** The `settings` JSON of a client row: the representation fields that are not columns, as stored (a JSON column). */
export type ClientSettings = ClientModel['settings'];

export interface ClientRepExtras {
  defaultClientScopes: string[];
  optionalClientScopes: string[];
  /** The client's own protocol mappers, ordered by name. */
  protocolMappers?: ProtocolMapperModel[];
  access?: { view: boolean; configure: boolean; manage: boolean };
}

/** Boolean fields kept in `settings` with their defaults (config reference §1.1, entity defaults). */
const SETTINGS_BOOLEANS: Record<string, boolean> = {
  surrogateAuthRequired: false,
  alwaysDisplayInConsole: false,
  consentRequired: false,
  standardFlowEnabled: true,
  implicitFlowEnabled: false,
  frontchannelLogout: false,
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown, d: number): number =>
  typeof v === 'number' ? v : v != null && v !== '' && !Number.isNaN(Number(v)) ? Number(v) : d;
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/**
 * Keycloak's ClientRepresentation (config reference §1.2) from the columns and the `settings`
 * JSON, in Keycloak's field order, nulls omitted. The secret is shown for confidential clients only.
 */
export function toClientRepresentation(c: ClientModel, x: ClientRepExtras): ClientRepresentation {
  const s = c.settings ?? {};
  const out: ClientRepresentation = { id: c.id, clientId: c.clientId };
  if (c.name != null) out.name = c.name;
  if (str(s.description) !== undefined) out.description = str(s.description);
  for (const k of ['rootUrl', 'adminUrl', 'baseUrl'] as const) if (str(s[k]) !== undefined) out[k] = str(s[k]);
  out.surrogateAuthRequired = Boolean(s.surrogateAuthRequired ?? SETTINGS_BOOLEANS.surrogateAuthRequired);
  out.enabled = Boolean(c.enabled);
  out.alwaysDisplayInConsole = Boolean(s.alwaysDisplayInConsole ?? SETTINGS_BOOLEANS.alwaysDisplayInConsole);
  out.clientAuthenticatorType = str(s.clientAuthenticatorType) ?? 'client-secret';
  if (!c.publicClient && !c.bearerOnly && c.secret != null) out.secret = c.secret;
  out.redirectUris = strList(s.redirectUris);
  out.webOrigins = strList(s.webOrigins);
  out.notBefore = num(s.notBefore, 0);
  out.bearerOnly = Boolean(c.bearerOnly);
  out.consentRequired = Boolean(s.consentRequired ?? SETTINGS_BOOLEANS.consentRequired);
  out.standardFlowEnabled = Boolean(s.standardFlowEnabled ?? SETTINGS_BOOLEANS.standardFlowEnabled);
  out.implicitFlowEnabled = Boolean(s.implicitFlowEnabled ?? SETTINGS_BOOLEANS.implicitFlowEnabled);
  out.directAccessGrantsEnabled = Boolean(c.directAccessGrantsEnabled);
  out.serviceAccountsEnabled = Boolean(c.serviceAccountsEnabled);
  if (s.authorizationServicesEnabled === true) out.authorizationServicesEnabled = true;
  out.publicClient = Boolean(c.publicClient);
  out.frontchannelLogout = Boolean(s.frontchannelLogout ?? SETTINGS_BOOLEANS.frontchannelLogout);
  out.protocol = c.protocol || 'openid-connect';
  const attributes: Record<string, string> = { ...((s.attributes as Record<string, string> | undefined) ?? {}) };
  attributes.realm_client = String(Boolean(c.realmClient));
  out.attributes = attributes;
  out.authenticationFlowBindingOverrides = { ...((s.authenticationFlowBindingOverrides as Record<string, string> | undefined) ?? {}) };
  out.fullScopeAllowed = Boolean(c.fullScopeAllowed);
  out.nodeReRegistrationTimeout = num(s.nodeReRegistrationTimeout, 0);
  const nodes = s.registeredNodes as Record<string, number> | undefined;
  if (nodes && Object.keys(nodes).length) out.registeredNodes = nodes;
  if (x.protocolMappers?.length) out.protocolMappers = x.protocolMappers.map(toProtocolMapperRepresentation);
  out.defaultClientScopes = x.defaultClientScopes;
  out.optionalClientScopes = x.optionalClientScopes;
  if (x.access) out.access = x.access;
  if (str(s.origin) !== undefined) out.origin = str(s.origin);
  return out;
}

/** What a caller that may list but not view a client sees of it. */
export function toListedOnlyClientRepresentation(c: ClientModel): ClientRepresentation {
  const out: ClientRepresentation = { id: c.id, clientId: c.clientId };
  const description = str(c.settings?.description);
  if (description !== undefined) out.description = description;
  return out;
}
