// @database-independent
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { ADMIN } from '../helpers/server';
import { describeWithSlapd, ROOT_DN, ROOT_PW, startSlapd, type TestSlapd } from '../helpers/slapd';

/**
 * StartTLS with a trusted certificate: an idserver process given the directory's CA through
 * NODE_EXTRA_CA_CERTS (as the README says) connects and binds over StartTLS; the same test without
 * the CA is the SSLHandshakeFailed of test-connection.test.ts. A process of its own on a SQLite file.
 */
let slapd: TestSlapd;
let child: ChildServer;
let dir: string;

jest.setTimeout(120_000);

describeWithSlapd('StartTLS', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    dir = mkdtempSync(join(tmpdir(), 'idserver-starttls-'));
    child = await startChildServer(['start-dev', '--http-host=127.0.0.1', '--http-port=0', `--db-url=${join(dir, 'db.sqlite')}`], {
      NODE_EXTRA_CA_CERTS: slapd.caFile,
    });
  });
  afterAll(async () => {
    child?.proc.kill('SIGTERM');
    await child?.exited;
    await slapd?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('testAuthentication over StartTLS succeeds when the CA is trusted; the bind credential is not in the log', async () => {
    const form = new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN }).toString();
    const tok = await fetch(`${child.url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const { access_token } = (await tok.json()) as { access_token: string };
    const post = (body: Record<string, string>) =>
      fetch(`${child.url}/admin/realms/master/testLDAPConnection`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await post({
      action: 'testAuthentication',
      connectionUrl: slapd.url,
      startTls: 'true',
      bindDn: ROOT_DN,
      bindCredential: ROOT_PW,
    });
    expect(ok.status).toBe(204);
    const bad = await post({
      action: 'testAuthentication',
      connectionUrl: slapd.url,
      startTls: 'true',
      bindDn: ROOT_DN,
      bindCredential: 'wrong-secret-x',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ errorMessage: 'AuthenticationFailure' });
    expect(child.output()).not.toContain(ROOT_PW);
    expect(child.output()).not.toContain('wrong-secret-x');
  });
});
