import { createdId, realmAdmin, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { describeWithSlapd, ldapComponent, ROOT_DN, ROOT_PW, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/** testLDAPConnection and ldap-server-capabilities against a real slapd: Keycloak's 204 and its error codes. */
const R = 'ldaptest';
let ts: TestServer;
let api: AdminApi;
let realmId: string;
let slapd: TestSlapd;

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

describeWithSlapd('testLDAPConnection', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api, realmId } = await realmServer(R));
  });
  afterAll(async () => {
    await closeLdapPools();
    await ts.close();
    await slapd.close();
  });
  const test$ = (body: Record<string, unknown>) => api.post(`/admin/realms/${R}/testLDAPConnection`, body);

  test('testConnection and testAuthentication answer 204 for a directory that is up and a right bind', async () => {
    await test$({ action: 'testConnection', connectionUrl: slapd.url }).expect(204);
    await test$({ action: 'testAuthentication', connectionUrl: slapd.url, bindDn: ROOT_DN, bindCredential: ROOT_PW }).expect(204);
  });

  test('a wrong password, no bind DN, an unknown action, a bad URL and a port nobody listens on: 400 with the error code', async () => {
    const bad = await test$({ action: 'testAuthentication', connectionUrl: slapd.url, bindDn: ROOT_DN, bindCredential: 'wrong' }).expect(
      400,
    );
    expect(bad.body).toEqual({ errorMessage: 'AuthenticationFailure' });
    expect((await test$({ action: 'testAuthentication', connectionUrl: slapd.url }).expect(400)).body).toEqual({
      errorMessage: 'InvalidBindDN',
    });
    expect((await test$({ action: 'frobnicate', connectionUrl: slapd.url }).expect(400)).body).toEqual({ errorMessage: 'NamingError' });
    expect((await test$({ action: 'testConnection', connectionUrl: 'http://x' }).expect(400)).body).toEqual({
      errorMessage: 'MalformedURL',
    });
    const down = await test$({ action: 'testConnection', connectionUrl: 'ldap://127.0.0.1:1' }).expect(400);
    expect(down.body).toEqual({ errorMessage: 'ConnectionFailed' });
  });

  test('StartTLS against a certificate the server does not trust fails with SSLHandshakeFailed, never a hang', async () => {
    const r = await test$({ action: 'testConnection', connectionUrl: slapd.url, startTls: 'true', connectionTimeout: '3000' }).expect(400);
    expect(r.body).toEqual({ errorMessage: 'SSLHandshakeFailed' });
  });

  test('the mask as bind credential uses the stored one of the component when URL and bind DN match', async () => {
    const id = createdId(await api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId)), 'ldap component');
    const stored = (await api.get(`/admin/realms/${R}/components/${id}`).expect(200)).body;
    expect(stored.config.bindCredential).toEqual(['**********']);
    const masked = { action: 'testAuthentication', connectionUrl: slapd.url, bindDn: ROOT_DN, bindCredential: '**********' };
    await test$({ ...masked, componentId: id }).expect(204);
    await test$(masked).expect(400);
    await test$({ ...masked, componentId: id, bindDn: 'cn=other,dc=example,dc=org' }).expect(400);
  });

  test('ldap-server-capabilities lists the root DSE controls, extensions and features', async () => {
    const r = await api
      .post(`/admin/realms/${R}/ldap-server-capabilities`, {
        action: 'queryServerCapabilities',
        connectionUrl: slapd.url,
        bindDn: ROOT_DN,
        bindCredential: ROOT_PW,
      })
      .expect(200);
    expect(r.body).toEqual(expect.arrayContaining([{ oid: '1.3.6.1.4.1.1466.20037', type: 'EXTENSION' }]));
    expect(r.body.some((c: { type: string }) => c.type === 'CONTROL')).toBe(true);
    expect(r.body.some((c: { type: string }) => c.type === 'FEATURE')).toBe(true);
    const down = await api
      .post(`/admin/realms/${R}/ldap-server-capabilities`, { action: 'queryServerCapabilities', connectionUrl: 'ldap://127.0.0.1:1' })
      .expect(400);
    expect(down.body).toEqual({ errorMessage: 'ldapServerCapabilities error' });
  });

  test('both need manage-realm', async () => {
    const viewer = await realmAdmin(ts, R, 'ldapviewer', ['view-realm']);
    await viewer.post(`/admin/realms/${R}/testLDAPConnection`, { action: 'testConnection', connectionUrl: slapd.url }).expect(403);
    await viewer.post(`/admin/realms/${R}/ldap-server-capabilities`, { action: 'queryServerCapabilities' }).expect(403);
  });
});
