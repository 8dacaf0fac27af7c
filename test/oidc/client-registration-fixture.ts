import { createRealm, createUser, expectStatus } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { startTestServer } from '../helpers/server';

/**
 * A test server listening on a port, a realm recording the registration events and admin events with
 * details, and a real HTTP client (fetch) for `/realms/{realm}/clients-registrations/...`.
 */

export const POLICY_TYPE = 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy';

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes, read by the tests.
  body: any;
}

export interface RegistrationFixture {
  ts: TestServer;
  api: AdminApi;
  realm: string;
  /** The public issuer-based URL of a provider (what Location and registration_client_uri carry). */
  publicUrl(provider: string, clientId?: string): string;
  call(method: string, path: string, opts?: { body?: unknown; token?: string; raw?: string; contentType?: string }): Promise<Answer>;
  initialToken(count?: number, expiration?: number): Promise<string>;
  /** A user of the realm holding the named realm-management roles: their access token. */
  userToken(username: string, roles: string[]): Promise<string>;
  events(type: string): Promise<Array<Record<string, unknown>>>;
  clientCount(): Promise<number>;
  /** The realm's registration policy component of that name and sub-type. */
  policy(name: string, subType: string): Promise<Record<string, unknown> & { id: string; config: Record<string, string[]> }>;
  setPolicyConfig(name: string, subType: string, config: Record<string, string[]>): Promise<void>;
  addPolicy(name: string, providerId: string, subType: string, config?: Record<string, string[]>): Promise<string>;
}

const EVENT_TYPES = ['CLIENT_REGISTER', 'CLIENT_INFO', 'CLIENT_UPDATE', 'CLIENT_DELETE'].flatMap((t) => [t, `${t}_ERROR`]);

export async function registrationFixture(realm: string): Promise<RegistrationFixture> {
  const ts = await startTestServer();
  const api = await ts.api();
  await createRealm(api, realm, {
    eventsEnabled: true,
    enabledEventTypes: EVENT_TYPES,
    adminEventsEnabled: true,
    adminEventsDetailsEnabled: true,
  });
  const base = await ts.listen();
  const call: RegistrationFixture['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (opts.raw !== undefined || opts.body !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      body = opts.raw ?? JSON.stringify(opts.body);
    }
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${base}/realms/${realm}/clients-registrations${path}`, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const policies = async () =>
    expectStatus(await api.get(`/admin/realms/${realm}/components?type=${POLICY_TYPE}`), 200, 'policies').body as Array<
      Record<string, unknown> & { id: string; name: string; subType: string; config: Record<string, string[]> }
    >;
  const policy: RegistrationFixture['policy'] = async (name, subType) => {
    const found = (await policies()).find((p) => p.name === name && p.subType === subType);
    if (!found) throw new Error(`no policy ${name}/${subType}`);
    return found;
  };
  return {
    ts,
    api,
    realm,
    publicUrl: (provider, clientId) =>
      `http://localhost:8080/realms/${realm}/clients-registrations/${provider}${clientId === undefined ? '' : `/${clientId}`}`,
    call,
    async initialToken(count = 1, expiration = 0) {
      const res = await api.post(`/admin/realms/${realm}/clients-initial-access`, { count, expiration });
      return expectStatus(res, 201, 'initial access token').body.token as string;
    },
    async userToken(username, roles) {
      await createUser(ts, realm, username, { roles, password: 'pw' });
      return ts.token({ realm, username, password: 'pw' });
    },
    async events(type) {
      const res = await api.get(`/admin/realms/${realm}/events?type=${type}&max=100`);
      return expectStatus(res, 200, 'events').body;
    },
    async clientCount() {
      return (expectStatus(await api.get(`/admin/realms/${realm}/clients`), 200, 'clients').body as unknown[]).length;
    },
    policy,
    async setPolicyConfig(name, subType, config) {
      const p = await policy(name, subType);
      expectStatus(await api.put(`/admin/realms/${realm}/components/${p.id}`, { ...p, config }), 204, `policy ${name}`);
    },
    async addPolicy(name, providerId, subType, config = {}) {
      const realmId = expectStatus(await api.get(`/admin/realms/${realm}`), 200, 'realm').body.id;
      const res = await api.post(`/admin/realms/${realm}/components`, {
        name,
        providerId,
        providerType: POLICY_TYPE,
        subType,
        parentId: realmId,
        config,
      });
      const loc = expectStatus(res, 201, `policy ${name}`).headers.location as string;
      return loc.slice(loc.lastIndexOf('/') + 1);
    },
  };
}
