import { dpopKey, dpopProof, payloadOf } from '../helpers/dpop';
import { Jar, type LoginWorld, exchange, loginWorld, redirectParams, signIn } from '../login/browser-client';

/**
 * DPoP and the browser flow (RFC 9449 §10, ADR 0038): an authorization request's `dpop_jkt` binds
 * the code to a key, and the `dpop-bind-enforcer` executor (Keycloak's DPoPBindEnforcerExecutor)
 * with its `auto-configure`, `enforce-authorization-code-binding-to-dpop` and
 * `allow-only-refresh-token-binding` settings.
 */
let w: LoginWorld;
const R = 'dpopflow';
const base = `/admin/realms/${R}`;
type Json = Record<string, unknown>;

beforeAll(async () => {
  w = await loginWorld(R);
});
afterAll(() => w?.ts.close());

async function enforce(configuration: Json) {
  await w.api
    .put(`${base}/client-policies/profiles`, { profiles: [{ name: 'd', executors: [{ executor: 'dpop-bind-enforcer', configuration }] }] })
    .expect(204);
  await w.api
    .put(`${base}/client-policies/policies`, {
      policies: [{ name: 'd', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['d'] }],
    })
    .expect(204);
}
afterEach(() => w.api.put(`${base}/client-policies/policies`, { policies: [] }).expect(204));

/** A code for `app` from a browser login with the extra authorization parameters. */
async function code(params: Record<string, string> = {}): Promise<string> {
  return redirectParams(await signIn(new Jar(), w.authUrl(params))).get('code') as string;
}

/** Exchanges a code with a DPoP proof of `key` (none when undefined). */
async function exchangeWith(c: string, key?: Awaited<ReturnType<typeof dpopKey>>) {
  if (!key) return exchange(w, c);
  const res = await fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', DPoP: await dpopProof(key, 'POST', w.tokenUrl) },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'app',
      code: c,
      redirect_uri: 'http://app.example/cb',
    }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('a code issued for a dpop_jkt is exchanged only with a proof of that key', async () => {
  const key = await dpopKey();
  const missing = await exchangeWith(await code({ dpop_jkt: key.jkt }));
  expect([missing.status, missing.body]).toEqual([400, { error: 'invalid_request', error_description: 'DPoP Proof missing' }]);
  const wrong = await exchangeWith(await code({ dpop_jkt: key.jkt }), await dpopKey());
  expect(wrong.body).toEqual({ error: 'invalid_request', error_description: 'DPoP Proof public key thumbprint does not match dpop_jkt' });
  const ok = await exchangeWith(await code({ dpop_jkt: key.jkt }), key);
  expect(ok.status).toBe(200);
  expect(ok.body.token_type).toBe('DPoP');
  expect(payloadOf(ok.body.access_token as string).cnf).toEqual({ jkt: key.jkt });
});

test('dpop-bind-enforcer: written clients must use DPoP; auto-configure turns it on', async () => {
  await enforce({});
  const refused = await w.api.post(`${base}/clients`, { clientId: 'no-dpop' });
  expect([refused.status, refused.body]).toEqual([
    400,
    { error: 'invalid_client_metadata', error_description: 'Invalid client metadata: DPoP token in disabled' },
  ]);
  await enforce({ 'auto-configure': true });
  const created = await w.api.post(`${base}/clients`, { clientId: 'auto-dpop' });
  expect(created.status).toBe(201);
  const id = String(created.headers.location).split('/').pop();
  expect((await w.api.get(`${base}/clients/${id}`)).body.attributes['dpop.bound.access.tokens']).toBe('true');
});

test('dpop-bind-enforcer: enforce-authorization-code-binding-to-dpop requires dpop_jkt on the authorization request', async () => {
  await enforce({ 'enforce-authorization-code-binding-to-dpop': true });
  const res = await fetch(w.authUrl(), { redirect: 'manual' });
  const q = redirectParams(res);
  expect([q.get('error'), q.get('error_description')]).toEqual(['invalid_request', 'Missing parameter: dpop_jkt']);
  const key = await dpopKey();
  expect(await code({ dpop_jkt: key.jkt })).toBeTruthy();
});

test('dpop-bind-enforcer: allow-only-refresh-token-binding needs a proof from a public client and binds only its refresh token', async () => {
  await enforce({ 'allow-only-refresh-token-binding': true });
  const without = await exchangeWith(await code());
  expect([without.status, without.body]).toEqual([400, { error: 'invalid_dpop_proof', error_description: 'DPoP proof is missing' }]);
  const key = await dpopKey();
  const ok = await exchangeWith(await code(), key);
  expect(ok.status).toBe(200);
  expect(ok.body.token_type).toBe('Bearer');
  expect(payloadOf(ok.body.access_token as string).cnf).toBeUndefined();
  expect(payloadOf(ok.body.refresh_token as string).cnf).toEqual({ jkt: key.jkt });
});
