import { lookup, reverse } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import type { ComponentModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import type { ClientRepresentation } from '../../representations/client';
import { REG_POLICY_TYPE } from '../components/config';

/**
 * Client registration policies (Keycloak's ClientRegistrationPolicyManager and the policies of
 * `services/clientregistration/policy/impl`): the realm's components of type ClientRegistrationPolicy
 * whose `subType` is the request's registration auth (`anonymous` or `authenticated`) run, with their
 * config, before a client is registered, updated, viewed or deleted through the registration service;
 * the ones that change a new client (consent required, full scope off, disabled) do so on the
 * representation before it is created, so a registration is one write.
 */
const log = getLogger('idserver.services.client-registration');

export type RegistrationAuth = 'anonymous' | 'authenticated';

/** A policy's refusal; with the policy's name it reads as Keycloak's ClientRegistrationPolicyException. */
export class PolicyRejection extends Error {
  constructor(
    readonly detail: string,
    readonly policyName?: string,
  ) {
    super(policyName === undefined ? detail : `Policy '${policyName}' rejected request to client-registration service. Details: ${detail}`);
  }
}

/** What a policy sees of the request. */
export interface PolicyRequest {
  ctx: RequestContext;
  realm: RealmModel;
  /** The caller's address (the `trusted-hosts` policy). */
  remoteAddress?: string;
  /** Collects the web origins `registration-web-origins` allows (Keycloak's Cors#addAllowedOrigins). */
  corsOrigins?: string[];
}

/** The stored client a view, update or delete is about, as its representation. */
type Current = ClientRepresentation;

interface Policy {
  beforeRegister?(p: PolicyRequest, config: Config, rep: ClientRepresentation): Promise<void>;
  /** Changes the new client's representation (run after every `beforeRegister` passed). */
  afterRegister?(rep: ClientRepresentation, config: Config): void;
  beforeUpdate?(p: PolicyRequest, config: Config, rep: ClientRepresentation, current: Current): Promise<void>;
  beforeView?(p: PolicyRequest, config: Config): Promise<void>;
  beforeDelete?(p: PolicyRequest, config: Config): Promise<void>;
}

type Config = Record<string, string[]>;

const list = (c: Config, key: string): string[] => (Array.isArray(c[key]) ? c[key].map(String) : []);
const first = (c: Config, key: string): string | undefined => list(c, key)[0];
/** A boolean option, `dflt` when absent (Keycloak's ComponentModel#get(key, default)). */
const flag = (c: Config, key: string, dflt: boolean): boolean => {
  const v = first(c, key);
  return v === undefined || v === '' ? dflt : v.toLowerCase() === 'true';
};

// ---- trusted-hosts ----------------------------------------------------------------------------

/** The address without its IPv4-mapped IPv6 prefix. */
const plainAddress = (a: string) => (a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a);
const isLoopback = (a: string) => a === '::1' || /^127\./.test(a);

/** `*.example.com` trusts example.com and its subdomains; anything else trusts that exact name. */
function domainTrusted(hostname: string, trusted: string): boolean {
  if (trusted.startsWith('*.')) {
    const domain = trusted.slice(2);
    return hostname === domain || hostname.endsWith(`.${domain}`);
  }
  return hostname === trusted;
}

async function addressesOf(host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true })).map((a) => plainAddress(a.address));
  } catch {
    return [];
  }
}

/** The host of the request is one of the trusted hosts (by address) or in a trusted domain (by its confirmed name). */
async function hostTrusted(address: string | undefined, trusted: string[]): Promise<boolean> {
  if (!address) return false;
  const ip = plainAddress(address);
  for (const host of trusted.filter((h) => !h.startsWith('*.'))) {
    if ((await addressesOf(host)).includes(ip)) return true;
  }
  let names: string[];
  if (isLoopback(ip)) names = ['localhost'];
  else {
    try {
      names = await reverse(ip);
    } catch {
      return false;
    }
    // A name counts only when it resolves back to the address (forward confirmation).
    const confirmed: string[] = [];
    for (const n of names) if ((await addressesOf(n)).includes(ip)) confirmed.push(n);
    names = confirmed;
  }
  return names.some((n) => trusted.some((t) => domainTrusted(n, t)));
}

async function verifyHost(p: PolicyRequest, c: Config): Promise<void> {
  if (!flag(c, 'host-sending-registration-request-must-match', true)) return;
  if (!(await hostTrusted(p.remoteAddress, list(c, 'trusted-hosts')))) {
    log.warn(`Failed to verify remote host: ${p.remoteAddress ?? 'unknown'}`);
    throw new PolicyRejection('Host not trusted.');
  }
}

const absolute = (root: string | undefined, url: string | undefined): string | undefined => {
  if (url === undefined || url === null) return undefined;
  if (!url.startsWith('/')) return url;
  return root ? root + url : undefined;
};

function urlHostTrusted(url: string, trusted: string[], kind: 'URL' | 'URI'): void {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    throw new PolicyRejection(`${kind} is malformed`);
  }
  const hosts = trusted.filter((h) => !h.startsWith('*.'));
  if (host && (hosts.includes(host) || trusted.some((t) => domainTrusted(host, t)))) return;
  log.warn(`${kind} '${url}' doesn't match any trusted host or trusted domain`);
  throw new PolicyRejection(`${kind} doesn't match any trusted host or trusted domain`);
}

function verifyClientUrls(c: Config, rep: ClientRepresentation): void {
  if (!flag(c, 'client-uris-must-match', true)) return;
  const trusted = list(c, 'trusted-hosts');
  const root = rep.rootUrl ?? undefined;
  for (const url of [root, absolute(root, rep.baseUrl ?? undefined), absolute(root, rep.adminUrl ?? undefined)]) {
    if (url) urlHostTrusted(url, trusted, 'URL');
  }
  for (const uri of rep.redirectUris ?? []) {
    const resolved = absolute(root, uri);
    if (resolved) urlHostTrusted(resolved, trusted, 'URI');
  }
}

const trustedHosts: Policy = {
  async beforeRegister(p, c, rep) {
    await verifyHost(p, c);
    verifyClientUrls(c, rep);
  },
  async beforeUpdate(p, c, rep) {
    await verifyHost(p, c);
    verifyClientUrls(c, rep);
  },
  beforeView: verifyHost,
  beforeDelete: verifyHost,
};

// ---- allowed-client-templates (allowed client scopes) -------------------------------------------

/** Names of the realm's default client scopes of one kind (default or optional). */
async function realmDefaultScopeNames(p: PolicyRequest, defaultScope: boolean): Promise<string[]> {
  const m = p.ctx.db.models;
  const links = await m.RealmDefaultClientScope.findAll({ where: { realmId: p.realm.id } });
  const ids = links.filter((l) => Boolean(l.defaultScope) === defaultScope).map((l) => l.scopeId);
  if (!ids.length) return [];
  const scopes = await m.ClientScope.findAll({ where: { id: { [Op.in]: ids } }, attributes: ['name'] });
  return scopes.map((s) => s.name);
}

async function allowedScopes(p: PolicyRequest, c: Config): Promise<{ all: string[]; permittedDefaults: string[] }> {
  const configured = list(c, 'allowed-client-scopes');
  const [defaults, optional] = await Promise.all([realmDefaultScopeNames(p, true), realmDefaultScopeNames(p, false)]);
  // `allow-default-scopes`: the realm's default and optional client scopes are allowed too.
  const withDefaults = flag(c, 'allow-default-scopes', true);
  const all = withDefaults ? [...configured, ...defaults, ...optional] : configured;
  return { all, permittedDefaults: defaults.filter((s) => withDefaults || configured.includes(s)) };
}

function scopesAllowed(requested: string[] | null | undefined, allowed: string[]): void {
  for (const name of requested ?? []) {
    if (!allowed.includes(name)) {
      log.warn(`Requested scope '${name}' not trusted in the list: ${allowed.join(', ')}`);
      throw new PolicyRejection('Not permitted to use specified clientScope');
    }
  }
}

const allowedClientScopes: Policy = {
  async beforeRegister(p, c, rep) {
    const { all, permittedDefaults } = await allowedScopes(p, c);
    scopesAllowed(rep.defaultClientScopes, all);
    scopesAllowed(rep.optionalClientScopes, all);
    // `add-default-scopes`: a client naming its scopes keeps the realm's (permitted) default scopes as defaults.
    if (
      flag(c, 'add-default-scopes', false) &&
      permittedDefaults.length &&
      (rep.defaultClientScopes != null || rep.optionalClientScopes != null)
    ) {
      const defaults = [...(rep.defaultClientScopes ?? [])];
      for (const s of permittedDefaults) if (!defaults.includes(s)) defaults.push(s);
      rep.defaultClientScopes = defaults;
      if (rep.optionalClientScopes != null)
        rep.optionalClientScopes = rep.optionalClientScopes.filter((s) => !permittedDefaults.includes(s));
    }
  },
  async beforeUpdate(p, c, rep, current) {
    const { all } = await allowedScopes(p, c);
    // Scopes the client already has stay allowed.
    scopesAllowed(
      (rep.defaultClientScopes ?? []).filter((s) => !(current.defaultClientScopes ?? []).includes(s)),
      all,
    );
    scopesAllowed(
      (rep.optionalClientScopes ?? []).filter((s) => !(current.optionalClientScopes ?? []).includes(s)),
      all,
    );
  },
};

// ---- the others ---------------------------------------------------------------------------------

function mappersAllowed(c: Config, rep: ClientRepresentation): void {
  const allowed = list(c, 'allowed-protocol-mapper-types');
  for (const m of rep.protocolMappers ?? []) {
    if (!allowed.includes(String(m.protocolMapper))) {
      log.warn(`ProtocolMapper '${m.name}' of type '${m.protocolMapper}' not allowed`);
      throw new PolicyRejection('ProtocolMapper type not allowed');
    }
  }
}

const allowedProtocolMappers: Policy = {
  async beforeRegister(_p, c, rep) {
    mappersAllowed(c, rep);
  },
  async beforeUpdate(_p, c, rep) {
    mappersAllowed(c, rep);
  },
};

const maxClients: Policy = {
  async beforeRegister(p, c) {
    const max = Number.parseInt(first(c, 'max-clients') ?? '200', 10);
    const count = await p.ctx.db.models.Client.count({ where: { realmId: p.realm.id } });
    if (count >= (Number.isNaN(max) ? 200 : max)) throw new PolicyRejection(`It's allowed to have max ${max} clients per realm`);
  },
};

/** A client must keep `field` where the policy put it: turning it the other way on update is refused. */
const kept = (field: 'consentRequired' | 'fullScopeAllowed' | 'enabled', locked: boolean, message: string) =>
  async function beforeUpdate(_p: PolicyRequest, _c: Config, rep: ClientRepresentation, current: Current): Promise<void> {
    const wanted = rep[field];
    if (wanted === undefined || wanted === null) return;
    if (Boolean(current[field]) === locked && Boolean(wanted) !== locked) throw new PolicyRejection(message);
  };

const consentRequired: Policy = {
  afterRegister(rep) {
    // The full-scope default follows the consent the client asked for (set after creation in Keycloak).
    rep.fullScopeAllowed ??= !(rep.consentRequired === true);
    rep.consentRequired = true;
  },
  beforeUpdate: kept('consentRequired', true, 'Not permitted to update consentRequired to false'),
};

const fullScopeDisabled: Policy = {
  afterRegister(rep) {
    rep.fullScopeAllowed = false;
  },
  beforeUpdate: kept('fullScopeAllowed', false, 'Not permitted to enable fullScopeAllowed'),
};

const clientDisabled: Policy = {
  afterRegister(rep) {
    rep.enabled = false;
  },
  beforeUpdate: kept('enabled', false, 'Not permitted to enable client'),
};

/** registration-web-origins: its `web-origins` may read the answer of every registration operation (CORS); it refuses nothing. */
const addOrigins = async (p: PolicyRequest, c: Config) => {
  p.corsOrigins?.push(...list(c, 'web-origins'));
};
const webOrigins: Policy = { beforeRegister: addOrigins, beforeUpdate: addOrigins, beforeView: addOrigins, beforeDelete: addOrigins };

/** The registration policy providers by id. */
const POLICIES: Record<string, Policy> = {
  'trusted-hosts': trustedHosts,
  'allowed-client-templates': allowedClientScopes,
  'allowed-protocol-mappers': allowedProtocolMappers,
  'max-clients': maxClients,
  'consent-required': consentRequired,
  scope: fullScopeDisabled,
  'client-disabled': clientDisabled,
  'registration-web-origins': webOrigins,
};

/** The realm's policy components for one registration auth. */
async function policiesOf(p: PolicyRequest, auth: RegistrationAuth): Promise<ComponentModel[]> {
  return p.ctx.db.models.Component.findAll({
    where: { realmId: p.realm.id, parentId: p.realm.id, providerType: REG_POLICY_TYPE, subType: auth },
    order: [
      ['name', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

/** Runs `op` of every policy of the realm for `auth`; the first refusal names its policy. */
async function trigger(
  p: PolicyRequest,
  auth: RegistrationAuth,
  what: string,
  op: (policy: Policy, config: Config) => Promise<void> | void,
): Promise<ComponentModel[]> {
  const models = await policiesOf(p, auth);
  for (const model of models) {
    const policy = Object.hasOwn(POLICIES, model.providerId) ? POLICIES[model.providerId] : undefined;
    if (!policy) throw new PolicyRejection(`Policy of type '${model.providerId}' not found`);
    log.debug(`Running policy '${model.name}' ${what}`);
    try {
      await op(policy, model.config ?? {});
    } catch (e) {
      if (!(e instanceof PolicyRejection)) throw e;
      const named = new PolicyRejection(e.detail, model.name);
      log.warn(`Operation '${what}' rejected. ${named.message}`);
      throw named;
    }
  }
  return models;
}

/**
 * Runs the policies before a registration, then lets them shape the new client's representation
 * (consent, full scope, enabled). Throws PolicyRejection; changes `rep` in place.
 */
export async function policiesOnRegister(p: PolicyRequest, auth: RegistrationAuth, rep: ClientRepresentation): Promise<void> {
  const models = await trigger(p, auth, 'before register client', (policy, c) => policy.beforeRegister?.(p, c, rep));
  for (const model of models) POLICIES[model.providerId]?.afterRegister?.(rep, model.config ?? {});
}

/** Runs the policies before an update of `current` with `rep`. */
export async function policiesOnUpdate(
  p: PolicyRequest,
  auth: RegistrationAuth,
  rep: ClientRepresentation,
  current: Current,
): Promise<void> {
  await trigger(p, auth, `before update client ${current.clientId}`, (policy, c) => policy.beforeUpdate?.(p, c, rep, current));
}

/** Runs the policies before a read of a client. */
export async function policiesOnView(p: PolicyRequest, auth: RegistrationAuth, clientId: string): Promise<void> {
  await trigger(p, auth, `before view client ${clientId}`, (policy, c) => policy.beforeView?.(p, c));
}

/** Runs the policies before a deletion of a client. */
export async function policiesOnDelete(p: PolicyRequest, auth: RegistrationAuth, clientId: string): Promise<void> {
  await trigger(p, auth, `before delete client ${clientId}`, (policy, c) => policy.beforeDelete?.(p, c));
}
