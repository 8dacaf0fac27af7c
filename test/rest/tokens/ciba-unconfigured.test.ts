import request from 'supertest';
import { CIBA_CHANNEL_OPTION } from '../../../src/config/ciba-options';
import { helpText, loadConfig } from '../../../src/config';
import { createClient, createRealm, createUser } from '../../helpers/fixtures';
import { startTestServer } from '../../helpers/server';

/**
 * The CIBA authentication channel option (ADR 0044): listed by `start --help` and checked; a server
 * started without it neither offers CIBA in discovery nor sends requests anywhere (Keycloak's 503).
 * Its own file: a second test server in one jest module would share the process's realm caches.
 */
const CIBA = 'urn:openid:params:grant-type:ciba';
const err = (res: request.Response) => [res.status, res.body.error, res.body.error_description];

test('the server option: listed by start --help, checked, and without it CIBA is neither offered nor served', async () => {
  expect(helpText('start')).toContain(`--${CIBA_CHANNEL_OPTION}=<value>`);
  expect(
    loadConfig({ mode: 'start', env: {}, args: [`--${CIBA_CHANNEL_OPTION}=http://device.example/auth`] }).values[CIBA_CHANNEL_OPTION],
  ).toBe('http://device.example/auth');
  expect(() => loadConfig({ mode: 'start', env: {}, args: [`--${CIBA_CHANNEL_OPTION}=ftp://device.example`] })).toThrow(
    /http or https URL/,
  );
  const bare = await startTestServer();
  try {
    const a = await bare.api();
    await createRealm(a, 'noch');
    await createClient(a, 'noch', { clientId: 'cd', secret: 's', attributes: { 'oidc.ciba.grant.enabled': 'true' } });
    await createUser(bare, 'noch', 'alice');
    const doc = (await request(bare.app).get('/realms/noch/.well-known/openid-configuration')).body;
    expect(doc.backchannel_authentication_endpoint).toBeUndefined();
    expect(doc.grant_types_supported).not.toContain(CIBA);
    const res = await request(bare.app)
      .post('/realms/noch/protocol/openid-connect/ext/ciba/auth')
      .auth('cd', 's')
      .type('form')
      .send({ scope: 'openid', login_hint: 'alice' });
    expect(err(res)).toEqual([503, 'server_error', 'Failed to send authentication request']);
  } finally {
    await bare.close();
  }
});
