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
  /** Connections lent out now. */
  busy: number;
  /** Requests waiting for a connection while `busy` is at `connectionPoolingMaxSize`. */
  waiting: Array<(c: Client | undefined) => void>;
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

function poolOf(cfg: LdapConfig): Pool {
  const fp = fingerprintOf(cfg);
  const pool = pools.get(cfg.id);
  if (pool?.fingerprint === fp) return pool;
  // The provider's connection settings changed: its idle connections go; lent ones close when given back.
  for (const { client, timer } of pool?.idle.splice(0) ?? []) {
    clearTimeout(timer);
    void close(client);
  }
  const fresh: Pool = { fingerprint: fp, idle: [], busy: 0, waiting: [] };
  pools.set(cfg.id, fresh);
  return fresh;
}

/**
 * A connection of the pool: an idle one, a new one while fewer than `connectionPoolingMaxSize` are lent
 * out, else the next one given back. As with JNDI's pool under Keycloak, the wait is bounded by the
 * connection timeout; then the directory counts as unreachable (`ConnectionFailed`), never a hang.
 * `undefined` means: open a new connection (the slot is taken).
 */
function acquire(cfg: LdapConfig, p: Pool): Promise<{ client: Client | undefined }> {
  const kept = p.idle.pop();
  if (kept) {
    clearTimeout(kept.timer);
    p.busy++;
    return Promise.resolve({ client: kept.client });
  }
  if (p.busy < cfg.poolMaxSize) {
    p.busy++;
    return Promise.resolve({ client: undefined });
  }
  return new Promise((resolve, reject) => {
    const waiter = (c: Client | undefined) => {
      clearTimeout(timer);
      resolve({ client: c });
    };
    const timer = setTimeout(() => {
      const i = p.waiting.indexOf(waiter);
      if (i >= 0) p.waiting.splice(i, 1);
      reject(new LdapError('ConnectionFailed', `No pooled LDAP connection of provider ${cfg.id} came free in time`));
    }, cfg.connectionTimeout || DEFAULT_CONNECT_TIMEOUT);
    timer.unref();
    p.waiting.push(waiter);
  });
}

/** Gives a connection back: to the first waiting request, else to the idle list; `undefined` frees the slot. */
function giveBack(cfg: LdapConfig, p: Pool, client: Client | undefined): void {
  const current = pools.get(cfg.id) === p;
  const next = p.waiting.shift();
  // A waiter takes over the slot (busy stays as it is), with this connection or, when it broke, a new one.
  if (next) {
    if (!current && client) void close(client);
    next(current ? client : undefined);
    return;
  }
  p.busy--;
  if (!client) return;
  if (!current || p.idle.length >= cfg.poolMaxSize) {
    void close(client);
    return;
  }
  const timer = setTimeout(() => {
    const i = p.idle.findIndex((x) => x.client === client);
    if (i >= 0) p.idle.splice(i, 1);
    void close(client);
  }, cfg.poolTimeout);
  timer.unref();
  p.idle.push({ client, timer });
}

/**
 * Runs `fn` on a connection bound as the bind DN: from the provider's pool when pooling is on (at most
 * `connectionPoolingMaxSize` at a time; a pooled connection the directory has since closed is replaced
 * once), otherwise a fresh one closed after.
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
  const p = poolOf(cfg);
  const { client: pooled } = await acquire(cfg, p);
  let client: Client | undefined = pooled;
  try {
    client ??= await adminConnection(cfg);
    try {
      return await fn(client);
    } catch (e) {
      await close(client);
      client = undefined;
      if (!pooled || !['CommunicationError', 'SocketReset'].includes(ldapErrorCode(e))) throw e;
      log.debug(`Pooled LDAP connection of provider ${cfg.id} was closed by the directory; reconnecting`);
      client = await adminConnection(cfg);
      try {
        return await fn(client);
      } catch (e2) {
        await close(client);
        client = undefined;
        throw e2;
      }
    }
  } finally {
    giveBack(cfg, p, client);
  }
}

/** Whether `password` binds as `dn` (a connection of its own, never pooled: Keycloak's authenticate). */
export async function bindAs(cfg: LdapConfig, dn: string, password: string): Promise<boolean> {
  return (await bindOutcome(cfg, dn, password)).ok;
}

/** A bind as `dn`: ok, or refused with the server's diagnostic message (Active Directory's carries its error code). */
export async function bindOutcome(cfg: LdapConfig, dn: string, password: string): Promise<{ ok: boolean; diagnostic?: string }> {
  if (!password) return { ok: false };
  const client = await connect(cfg);
  try {
    await client.bind(dn, password);
    return { ok: true };
  } catch (e) {
    if (e instanceof InvalidCredentialsError) return { ok: false, diagnostic: e.message };
    throw e;
  } finally {
    await close(client);
  }
}
