import { requireCap } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import { cannotParse, errorA } from '../../core/errors';
import type { RealmModel } from '../../db/models/realm';
import { SECRET_MASK } from '../../representations/component';
import { ldapConfigOf } from './ldap-config';
import { close, connect, LdapError, ldapErrorCode } from './ldap-connection';

/**
 * `POST /admin/realms/{realm}/testLDAPConnection` and `/ldap-server-capabilities`
 * (LDAPServerCapabilitiesManager of Keycloak): a connection (and a bind) made with the settings of
 * the request, 204 or 400 with Keycloak's error code; the capabilities of the root DSE. A bind
 * credential sent as the mask is the stored one of `componentId`, when the URL and bind DN match it.
 */
export interface TestLdapInput {
  action?: string;
  connectionUrl?: string;
  bindDn?: string;
  bindCredential?: string;
  useTruststoreSpi?: string;
  connectionTimeout?: string;
  componentId?: string;
  startTls?: string;
  authType?: string;
}

const FIELDS = [
  'action',
  'connectionUrl',
  'bindDn',
  'bindCredential',
  'useTruststoreSpi',
  'connectionTimeout',
  'componentId',
  'startTls',
  'authType',
];
const TEST_TIMEOUT = 30_000;

/** TestLdapConnectionRepresentation from a JSON body (unknown fields ignored, as Jackson does there). */
export function parseTestLdapInput(body: unknown): TestLdapInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
  const out: Record<string, string> = {};
  for (const k of FIELDS) {
    const v = (body as Record<string, unknown>)[k];
    if (v === undefined || v === null) continue;
    if (typeof v === 'object') throw cannotParse('mapping');
    out[k] = String(v);
  }
  return out;
}

const sameUrls = (a: string, b: string) => {
  const norm = (s: string) =>
    s
      .trim()
      .split(/\s+/)
      .map((u) => u.replace(/\/$/, '').toLowerCase());
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
};

/** The bind credential to use: the stored one for the mask, when the request names the same directory and DN. */
async function credentialOf(ctx: RequestContext, realm: RealmModel, input: TestLdapInput): Promise<string | undefined> {
  if (!input.componentId || input.authType === 'none' || input.bindCredential !== SECRET_MASK) return input.bindCredential;
  const c = await ctx.db.models.Component.findOne({ where: { id: input.componentId, realmId: realm.id } });
  if (!c) return input.bindCredential;
  const stored = ldapConfigOf(c);
  if (sameUrls(stored.connectionUrl, input.connectionUrl ?? '') && input.bindDn?.toLowerCase() === stored.bindDn?.toLowerCase())
    return stored.bindCredential;
  return input.bindCredential;
}

const settingsOf = (input: TestLdapInput) => {
  const t = Number(input.connectionTimeout);
  const timeout = Number.isInteger(t) && t > 0 ? t : TEST_TIMEOUT;
  return {
    connectionUrl: input.connectionUrl ?? '',
    startTls: input.startTls === 'true',
    connectionTimeout: timeout,
    readTimeout: timeout,
  };
};

/** POST /{realm}/testLDAPConnection: testConnection (connect only) or testAuthentication (bind); 204 or 400 `{errorMessage: code}` (manage-realm). */
export async function testLdapConnection(ctx: RequestContext, realm: RealmModel, input: TestLdapInput): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  const auth = input.action === 'testAuthentication';
  try {
    if (!auth && input.action !== 'testConnection') throw new LdapError('NamingError', 'testLDAP unknown action');
    const authType = input.authType ?? 'simple';
    if (auth && authType === 'simple' && !input.bindDn) throw new LdapError('InvalidBindDN', 'Unknown bind DN');
    const client = await connect(settingsOf(input));
    try {
      if (auth && authType === 'simple') await client.bind(input.bindDn as string, (await credentialOf(ctx, realm, input)) ?? '');
      // Anonymous (authType none) or a plain connection test: one request proves the directory answers.
      else await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'] });
    } finally {
      await close(client);
    }
  } catch (e) {
    const code = ldapErrorCode(e);
    ctx.log.warn(`${auth ? 'Error when authenticating to LDAP' : 'Error when connecting to LDAP'}: ${code} (${(e as Error)?.message})`);
    throw errorA(400, code);
  }
}

export interface LdapCapability {
  oid: string;
  type: 'CONTROL' | 'EXTENSION' | 'FEATURE';
}

/** POST /{realm}/ldap-server-capabilities: the root DSE's supported controls, extensions and features (manage-realm). */
export async function ldapServerCapabilities(ctx: RequestContext, realm: RealmModel, input: TestLdapInput): Promise<LdapCapability[]> {
  await requireCap(ctx, realm, 'manageRealm');
  if (input.action !== 'queryServerCapabilities') return [];
  try {
    const client = await connect(settingsOf(input));
    try {
      if (input.authType !== 'none' && input.bindDn) await client.bind(input.bindDn, (await credentialOf(ctx, realm, input)) ?? '');
      const { searchEntries } = await client.search('', {
        scope: 'base',
        filter: '(objectClass=*)',
        attributes: ['supportedControl', 'supportedExtension', 'supportedFeatures'],
      });
      const root = searchEntries[0] ?? {};
      const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
      return [
        ...list(root.supportedControl).map((oid) => ({ oid, type: 'CONTROL' as const })),
        ...list(root.supportedExtension).map((oid) => ({ oid, type: 'EXTENSION' as const })),
        ...list(root.supportedFeatures).map((oid) => ({ oid, type: 'FEATURE' as const })),
      ];
    } finally {
      await close(client);
    }
  } catch (e) {
    ctx.log.warn(`Error when querying LDAP server capabilities: ${ldapErrorCode(e)}`);
    throw errorA(400, 'ldapServerCapabilities error');
  }
}
