import { Client, InvalidCredentialsError, InvalidDNSyntaxError, NoSuchObjectError } from 'ldapts';
import { getLogger } from '../../logging';
import type { LdapConfig } from './ldap-config';

/**
 * Connections to an LDAP directory (LDAPContextManager of Keycloak): one ldapts client per
 * connection, StartTLS when configured (the server name is checked against the URL's host), the
 * bind DN's simple bind, connect and read timeouts, and a small pool of bound connections per
 * provider when `connectionPooling` is on. Errors are mapped to the codes Keycloak's
 * LDAPServerCapabilitiesManager reports. The bind credential is never logged.
 */
const log = getLogger('idserver.services.user-storage.ldap');

/** Without a configured timeout a connection attempt still ends (no hang): the operating system's may take minutes. */
const DEFAULT_CONNECT_TIMEOUT = 10_000;
const DEFAULT_READ_TIMEOUT = 60_000;

export class LdapError extends Error {
  constructor(
    /** Keycloak's error code (AuthenticationFailure, ConnectionFailed, ...). */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The code Keycloak's getErrorCode gives for a failure of this kind. */
export function ldapErrorCode(e: unknown): string {
  if (e instanceof LdapError) return e.code;
  if (e instanceof InvalidCredentialsError) return 'AuthenticationFailure';
  if (e instanceof InvalidDNSyntaxError) return 'InvalidName';
  if (e instanceof NoSuchObjectError) return 'NameNotFound';
  const err = e as { code?: unknown; message?: string };
  switch (err?.code) {
    case 'ECONNREFUSED':
      return 'ConnectionFailed';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'UnknownHost';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'NoRouteToHost';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'SocketReset';
  }
  if (typeof err?.code === 'string' && /CERT|SSL|TLS|SELF_SIGNED/.test(err.code)) return 'SSLHandshakeFailed';
  if (/timeout|timed out|closed/i.test(err?.message ?? '')) return 'CommunicationError';
  if (typeof err?.code === 'number') return 'NamingError';
  return 'UnknownError';
}

/** Connection settings: what testLDAPConnection passes, or a stored provider's. */
export type ConnectSettings = Pick<LdapConfig, 'connectionUrl' | 'startTls' | 'connectionTimeout' | 'readTimeout'>;

/** The first URL of a space-separated connection URL list, checked. */
function urlOf(s: ConnectSettings): URL {
  const raw = s.connectionUrl.trim().split(/\s+/)[0] ?? '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LdapError('MalformedURL', 'Invalid connection URL');
  }
  if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') throw new LdapError('MalformedURL', 'Invalid connection URL');
  return url;
}

/** A new connection (StartTLS done when configured), not yet bound. */
export async function connect(s: ConnectSettings, autoRebind = false): Promise<Client> {
  const url = urlOf(s);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const client = new Client({
    // URL#origin is 'null' for ldap: (not a special scheme).
    url: `${url.protocol}//${url.host}`,
    connectTimeout: s.connectionTimeout || DEFAULT_CONNECT_TIMEOUT,
    timeout: s.readTimeout || DEFAULT_READ_TIMEOUT,
    tlsOptions: url.protocol === 'ldaps:' ? { host, servername: isIp(host) ? undefined : host } : undefined,
    // A pooled connection the directory closed is reopened by ldapts on its next operation: bound again.
    autoRebind,
  });
  if (s.startTls) {
    try {
      await client.startTLS({ host, servername: isIp(host) ? undefined : host });
    } catch (e) {
      await close(client);
      throw e;
    }
  }
  return client;
}

const isIp = (h: string) => /^[\d.]+$/.test(h) || h.includes(':');

/** Unbinds and closes, ignoring a connection that is already gone. */
export async function close(client: Client): Promise<void> {
  await client.unbind().catch(() => undefined);
}

/** A connection bound as the provider's bind DN (anonymous with authType none). */
export async function adminConnection(cfg: LdapConfig): Promise<Client> {
  const client = await connect(cfg, cfg.pooling);
  try {
    if (cfg.authType === 'simple' && cfg.bindDn) await client.bind(cfg.bindDn, cfg.bindCredential ?? '');
  } catch (e) {
    await close(client);
    throw e;
  }
  return client;
}

interface Pool {
  fingerprint: string;
  idle: Array<{ client: Client; timer: NodeJS.Timeout }>;
}
const pools = new Map<string, Pool>();

const fingerprintOf = (cfg: LdapConfig) =>
  JSON.stringify([cfg.connectionUrl, cfg.bindDn, cfg.bindCredential, cfg.authType, cfg.connectionTimeout, cfg.readTimeout]);

/** Closes every pooled connection (on server close). */
export async function closeLdapPools(): Promise<void> {
  const all = [...pools.values()].flatMap((p) => p.idle.splice(0));
  pools.clear();
  for (const { timer } of all) clearTimeout(timer);
  await Promise.all(all.map(({ client }) => close(client)));
}

/**
 * Runs `fn` on a connection bound as the bind DN: from the provider's pool when pooling is on (a
 * pooled connection the directory has since closed is replaced once), otherwise a fresh one closed after.
 */
export async function withAdmin<T>(cfg: LdapConfig, fn: (c: Client) => Promise<T>): Promise<T> {
  if (!cfg.pooling) {
    const c = await adminConnection(cfg);
    try {
      return await fn(c);
    } finally {
      await close(c);
    }
  }
  const fp = fingerprintOf(cfg);
  let pool = pools.get(cfg.id);
  if (pool && pool.fingerprint !== fp) {
    for (const { client, timer } of pool.idle.splice(0)) {
      clearTimeout(timer);
      void close(client);
    }
  }
  if (!pool || pool.fingerprint !== fp) {
    pool = { fingerprint: fp, idle: [] };
    pools.set(cfg.id, pool);
  }
  const p = pool;
  const pooled = p.idle.pop();
  if (pooled) clearTimeout(pooled.timer);
  let client = pooled?.client ?? (await adminConnection(cfg));
  let result: T;
  try {
    result = await fn(client);
  } catch (e) {
    await close(client);
    if (!pooled || !['CommunicationError', 'SocketReset'].includes(ldapErrorCode(e))) throw e;
    log.debug(`Pooled LDAP connection of provider ${cfg.id} was closed by the directory; reconnecting`);
    client = await adminConnection(cfg);
    try {
      result = await fn(client);
    } catch (e2) {
      await close(client);
      throw e2;
    }
  }
  if (p.idle.length < cfg.poolMaxSize && pools.get(cfg.id) === p) {
    const c = client;
    const timer = setTimeout(() => {
      const i = p.idle.findIndex((x) => x.client === c);
      if (i >= 0) p.idle.splice(i, 1);
      void close(c);
    }, cfg.poolTimeout);
    timer.unref();
    p.idle.push({ client: c, timer });
  } else await close(client);
  return result;
}

/** Whether `password` binds as `dn` (a connection of its own, never pooled: Keycloak's authenticate). */
export async function bindAs(cfg: LdapConfig, dn: string, password: string): Promise<boolean> {
  if (!password) return false;
  const client = await connect(cfg);
  try {
    await client.bind(dn, password);
    return true;
  } catch (e) {
    if (e instanceof InvalidCredentialsError) return false;
    throw e;
  } finally {
    await close(client);
  }
}
