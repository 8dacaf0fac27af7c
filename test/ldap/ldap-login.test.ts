import { type AddressInfo, createServer } from 'node:net';
import { Jar, type LoginWorld, loginWorld, pageError, redirectParams, signIn, passwordGrant } from '../login/browser-client';
import { createdId } from '../helpers/fixtures';
import { describeWithSlapd, ldapComponent, PEOPLE_DN, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * Login with an LDAP password against a real slapd: the password grant and the browser login's form,
 * the import of the directory user (federationLink, LDAP_ID, mapped names), a wrong password, a
 * user removed from the directory, and a directory that is down (LDAP users fail fast, local users
 * still log in).
 */
const R = 'ldaplogin';
let w: LoginWorld;
let slapd: TestSlapd;
let ldapId: string;

const grant = (username: string, password: string) => passwordGrant(w, username, password);

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

describeWithSlapd('LDAP login', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    w = await loginWorld(R);
    const realmId = (await w.api.get(`/admin/realms/${R}`).expect(200)).body.id;
    ldapId = createdId(await w.api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId)), 'ldap provider');
  });
  afterAll(async () => {
    await closeLdapPools();
    await w?.ts.close();
    await slapd?.close();
  });

  test('the password grant with an LDAP password imports the user and issues tokens; a wrong password is invalid_grant', async () => {
    const bad = await grant('jbrown', 'nope');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    const ok = await grant('jbrown', 'jbrown-pw');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { access_token: string }).access_token).toEqual(expect.any(String));
    const [u] = (await w.api.get(`/admin/realms/${R}/users?username=jbrown&exact=true`).expect(200)).body;
    // Keycloak's default mappers for an RDN other than cn: first name from cn, last name from sn.
    expect(u).toMatchObject({
      username: 'jbrown',
      email: 'jbrown@example.org',
      firstName: 'James Brown',
      lastName: 'Brown',
      federationLink: ldapId,
    });
    const full = (await w.api.get(`/admin/realms/${R}/users/${u.id}`).expect(200)).body;
    expect(full.attributes.LDAP_ENTRY_DN).toEqual([`uid=jbrown,${PEOPLE_DN}`]);
    // The full representation names the provider as `origin` too (ModelToRepresentation: StorageId.resolveProviderId).
    expect(full.origin).toBe(ldapId);
    expect(full.attributes.LDAP_ID[0]).toMatch(/^[0-9a-f-]{36}$/);
    // A second login finds the local copy and checks the password against the directory again.
    expect((await grant('jbrown', 'jbrown-pw')).status).toBe(200);
    expect((await grant('jbrown', 'nope')).status).toBe(400);
  });

  test('login by email finds the directory user too', async () => {
    expect((await grant('bwilson@example.org', 'bwilson-pw')).status).toBe(200);
  });

  test('the browser login form accepts the LDAP password', async () => {
    const jar = new Jar();
    const wrong = await signIn(jar, w.authUrl(), 'rsmith', 'bad');
    expect(wrong.status).toBe(401);
    expect(pageError(await wrong.text())).toBe('Invalid username or password.');
    const res = await signIn(new Jar(), w.authUrl(), 'rsmith', 'rsmith-pw');
    expect(res.status).toBe(302);
    expect(redirectParams(res).get('code')).toEqual(expect.any(String));
  });

  test('a user removed from the directory can no longer log in and its local copy goes', async () => {
    await slapd.addUser('gone', 'Gone', 'Soon', 'gone@example.org', 'gone-pw');
    expect((await grant('gone', 'gone-pw')).status).toBe(200);
    const admin = await slapd.admin();
    await admin.del(`uid=gone,${PEOPLE_DN}`);
    await admin.unbind();
    expect((await grant('gone', 'gone-pw')).status).toBe(400);
    expect((await w.api.get(`/admin/realms/${R}/users?username=gone&exact=true`).expect(200)).body).toEqual([]);
  });

  test('with the directory down an LDAP user fails fast with invalid_grant and a local user still logs in', async () => {
    await slapd.addUser('downer', 'Down', 'Er', 'downer@example.org', 'downer-pw');
    expect((await grant('downer', 'downer-pw')).status).toBe(200);
    await slapd.stop();
    try {
      const t0 = Date.now();
      const res = await grant('downer', 'downer-pw');
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
      expect((await grant('nobody-anywhere', 'x')).status).toBe(400);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect((await grant('alice', 'pw')).status).toBe(200);
    } finally {
      await slapd.start();
    }
    expect((await grant('downer', 'downer-pw')).status).toBe(200);
  });

  test('a directory that accepts connections and never answers costs the read timeout, not a hang', async () => {
    // A listener that takes the connection and stays silent: only the provider's readTimeout ends the bind.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const realmId = (await w.api.get(`/admin/realms/${R}`).expect(200)).body.id;
    const url = { url: `ldap://127.0.0.1:${port}` };
    const mute = createdId(
      await w.api.post(`/admin/realms/${R}/components`, {
        ...ldapComponent(url, realmId, { readTimeout: '700', connectionTimeout: '700', priority: '-1' }),
        name: 'mute',
      }),
      'mute provider',
    );
    try {
      const t0 = Date.now();
      expect((await grant('nobody-here', 'x')).status).toBe(400);
      const took = Date.now() - t0;
      expect(took).toBeGreaterThanOrEqual(600);
      expect(took).toBeLessThan(5000);
      expect((await grant('alice', 'pw')).status).toBe(200);
      // The other provider is still asked after the silent one gave up.
      await slapd.addUser('aftermute', 'After', 'Mute', 'aftermute@example.org', 'aftermute-pw');
      expect((await grant('aftermute', 'aftermute-pw')).status).toBe(200);
    } finally {
      await w.api.delete(`/admin/realms/${R}/components/${mute}`).expect(204);
      await closeLdapPools();
      silent.close();
    }
  });
});
