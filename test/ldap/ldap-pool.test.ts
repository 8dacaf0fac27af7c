import { createServer, type Server, type Socket, connect } from 'node:net';
import { createdId, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { describeWithSlapd, ldapComponent, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * Connection pooling of an LDAP provider (`connectionPooling`, `connectionPoolingMaxSize`), seen from
 * the directory's side: a TCP relay in front of slapd counts the connections idserver opens. Keycloak
 * keeps pooled bind-DN connections per provider (LDAPContextManager with JNDI's connection pool); a
 * user's own password bind is never pooled.
 */
let ts: TestServer;
let api: AdminApi;
let realmId: string;
let slapd: TestSlapd;

/** A relay to slapd that counts accepted connections and knows how many are open. */
interface Relay {
  url: string;
  opened: number;
  open: Set<Socket>;
  close(): Promise<void>;
}

/** `delayMs` holds each new connection that long before it reaches slapd, so that requests overlap. */
async function relayTo(target: string, delayMs = 0): Promise<Relay> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const relay: Relay = { url: '', opened: 0, open, close: async () => {} };
  const server: Server = createServer((client) => {
    relay.opened++;
    open.add(client);
    const upstream = connect(Number(port), hostname);
    // Until piped, the client's bytes wait in its socket.
    setTimeout(() => client.pipe(upstream).pipe(client), delayMs);
    const done = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', done).on('error', done);
    upstream.on('close', done).on('error', done);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('relay did not listen');
  relay.url = `ldap://127.0.0.1:${address.port}`;
  relay.close = () =>
    new Promise<void>((res) => {
      for (const s of open) s.destroy();
      server.close(() => res());
    });
  return relay;
}

/** Lets the relay see connections closed by idserver (their FIN arrives a moment after the response). */
async function settled(relay: Relay, open: number): Promise<void> {
  for (let i = 0; i < 100 && relay.open.size !== open; i++) await new Promise((r) => setTimeout(r, 20));
}

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

describeWithSlapd('LDAP connection pooling', () => {
  const relays: Relay[] = [];
  let n = 0;

  async function provider(config: Record<string, string>, delayMs = 0) {
    const relay = await relayTo(slapd.url, delayMs);
    relays.push(relay);
    const R = `ldappool${++n}`;
    await api.post('/admin/realms', { realm: R, enabled: true }).expect(201);
    realmId = (await api.get(`/admin/realms/${R}`).expect(200)).body.id;
    // Each search asks the directory (and imports what it finds).
    createdId(await api.post(`/admin/realms/${R}/components`, ldapComponent({ url: relay.url }, realmId, config)), 'ldap provider');
    const search = (term: string) => api.get(`/admin/realms/${R}/users?search=${term}`).expect(200);
    return { R, relay, search };
  }

  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api } = await realmServer('ldappool0'));
  });
  afterAll(async () => {
    await closeLdapPools();
    for (const r of relays) await r.close();
    await ts.close();
    await slapd.close();
  });

  test('with pooling on, one bind-DN connection serves one request after another', async () => {
    const { relay, search } = await provider({ connectionPooling: 'true' });
    for (const term of ['bwil', 'rsmi', 'nobody-here', 'bwil', 'jdoe', 'x1', 'x2', 'x3']) await search(term);
    expect(relay.opened).toBe(1);
    await settled(relay, 1);
    expect(relay.open.size).toBe(1);
  });

  test('with pooling off, each request opens a connection and closes it', async () => {
    const { relay, search } = await provider({ connectionPooling: 'false' });
    for (const term of ['bwil', 'rsmi', 'nobody-here', 'jdoe']) await search(term);
    expect(relay.opened).toBe(4);
    await settled(relay, 0);
    expect(relay.open.size).toBe(0);
  });

  test('concurrent requests share at most connectionPoolingMaxSize connections, which the pool keeps', async () => {
    // Each new connection takes 300 ms to reach the directory: the eight searches are in flight together.
    const { relay, search } = await provider({ connectionPooling: 'true', connectionPoolingMaxSize: '2' }, 300);
    const found = await Promise.all(Array.from({ length: 8 }, () => search('bwil')));
    // All eight were answered from the directory, through two connections (JNDI's pool waits for a free one).
    for (const r of found) expect(r.body.map((u: { username: string }) => u.username)).toEqual(['bwilson']);
    expect(relay.opened).toBe(2);
    await settled(relay, 2);
    expect(relay.open.size).toBe(2);
    for (const term of ['rsmi', 'jdoe']) await search(term);
    expect(relay.opened).toBe(2);
  });

  test('a request that finds the pool busy past the connection timeout is answered as for a directory that is down', async () => {
    const { relay, search, R } = await provider(
      { connectionPooling: 'true', connectionPoolingMaxSize: '1', connectionTimeout: '200' },
      800,
    );
    // supertest sends a request when it is awaited: `then` starts it now.
    const first = search('bwil').then((r) => r);
    // The second search starts once the first holds the pool's only connection (still on its way to slapd).
    for (let k = 0; k < 100 && relay.opened === 0; k++) await new Promise((r) => setTimeout(r, 10));
    const waited = await api.get(`/admin/realms/${R}/users?search=rsmi`);
    const slow = await first;
    expect(slow.body.map((u: { username: string }) => u.username)).toEqual(['bwilson']);
    // The waiting search gave up after 200 ms and answered from local users only (rsmith is not imported yet).
    expect(waited.status).toBe(200);
    expect(waited.body).toEqual([]);
    expect(relay.opened).toBe(1);
    // Once the pool is free again, the same search reaches the directory.
    expect((await search('rsmi')).body.map((u: { username: string }) => u.username)).toEqual(['rsmith']);
  });
});
