import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompactEncrypt, exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike, SignJWT } from 'jose';
import { createClient } from '../helpers/fixtures';
import { advanceClock, resetClock } from '../helpers/sessions';
import { exchange, Jar, type LoginWorld, loginWorld, pageError, pkcePair, REDIRECT, redirectParams, signIn } from './browser-client';

/**
 * Pushed authorization requests (RFC 9126) and request objects (RFC 9101) over HTTP, as Keycloak's
 * ParEndpoint and AuthorizationEndpointRequestParserProcessor: a confidential client pushes, the
 * browser brings `client_id` + `request_uri` to the authorization endpoint, once.
 */
let w: LoginWorld;
const R = 'parjar';
let parUrl: string;
let key: Awaited<ReturnType<typeof generateKeyPair>>;
let docs: Server;
let docsBase: string;
const served = new Map<string, string>();

beforeAll(async () => {
  w = await loginWorld(R);
  parUrl = `${w.base}/realms/${R}/protocol/openid-connect/ext/par/request`;
  key = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  // The client's own web server, serving request objects by reference.
  docs = createServer((req, res) => {
    const body = served.get(String(req.url));
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/oauth-authz-req+jwt' }).end(body ?? '');
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  docsBase = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  await createClient(w.api, R, {
    clientId: 'rp',
    secret: 'rp-secret',
    redirectUris: [REDIRECT],
    attributes: { 'use.jwks.string': 'true', 'jwks.string': JSON.stringify({ keys: [jwk] }), 'request.uris': `${docsBase}/ro/*` },
  });
  await createClient(w.api, R, { clientId: 'other', secret: 'other-secret', redirectUris: [REDIRECT] });
});
afterAll(async () => {
  resetClock();
  docs?.close();
  await w?.ts.close();
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const push = (fields: Record<string, string>, auth = basic('rp', 'rp-secret')) =>
  fetch(parUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
    body: new URLSearchParams(fields).toString(),
  });
const codeRequest = (extra: Record<string, string> = {}) => ({
  response_type: 'code',
  redirect_uri: REDIRECT,
  scope: 'openid',
  state: 'st-par',
  ...extra,
});
const authorize = (params: Record<string, string>) => `${w.base}/realms/${R}/protocol/openid-connect/auth?${new URLSearchParams(params)}`;
const confidentialExchange = (code: string, extra: Record<string, string> = {}) =>
  exchange(w, code, { client_id: 'rp', client_secret: 'rp-secret', ...extra });
const sign = (claims: Record<string, unknown>, alg = 'RS256') =>
  new SignJWT(claims).setProtectedHeader({ alg, kid: 'k1' }).setIssuedAt().setExpirationTime('1m').sign(key.privateKey);
const setAttributes = async (clientId: string, attributes: Record<string, string>) => {
  const [c] = (await w.api.get(`/admin/realms/${R}/clients?clientId=${clientId}`).expect(200)).body;
  await w.api.put(`/admin/realms/${R}/clients/${c.id}`, { ...c, attributes: { ...c.attributes, ...attributes } }).expect(204);
};

test('discovery lists the pushed authorization request endpoint and request object support', async () => {
  const doc = (await (await fetch(`${w.base}/realms/${R}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  expect(doc).toMatchObject({
    pushed_authorization_request_endpoint: parUrl,
    require_pushed_authorization_requests: false,
    request_parameter_supported: true,
    request_uri_parameter_supported: true,
  });
});

test('a pushed request is used once by its client: login, code, tokens; a second use is an error page', async () => {
  const { verifier, challenge } = pkcePair();
  const res = await push(codeRequest({ code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n-1' }));
  expect(res.status).toBe(201);
  const body = (await res.json()) as { request_uri: string; expires_in: number };
  expect(body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[0-9a-f-]{36}$/);
  expect(body.expires_in).toBe(60);
  const jar = new Jar();
  const back = await signIn(jar, authorize({ client_id: 'rp', request_uri: body.request_uri }));
  const q = redirectParams(back);
  expect(q.get('state')).toBe('st-par');
  const tokens = await confidentialExchange(q.get('code') as string, { code_verifier: verifier });
  expect(tokens.status).toBe(200);
  const again = await new Jar().fetch(authorize({ client_id: 'rp', request_uri: body.request_uri }));
  expect(again.status).toBe(400);
  expect(pageError(await again.text())).toBe('Invalid Request');
});

test('a pushed request is bound to its client and expires after parRequestUriLifespan', async () => {
  const uri = ((await (await push(codeRequest())).json()) as { request_uri: string }).request_uri;
  const stolen = await new Jar().fetch(authorize({ client_id: 'other', request_uri: uri }));
  expect(stolen.status).toBe(400);
  await w.api.put(`/admin/realms/${R}`, { attributes: { parRequestUriLifespan: '30' } }).expect(204);
  const short = (await (await push(codeRequest())).json()) as { request_uri: string; expires_in: number };
  expect(short.expires_in).toBe(30);
  advanceClock(31);
  try {
    const late = await new Jar().fetch(authorize({ client_id: 'rp', request_uri: short.request_uri }));
    expect(late.status).toBe(400);
  } finally {
    resetClock();
    await w.api.put(`/admin/realms/${R}`, { attributes: { parRequestUriLifespan: '60' } }).expect(204);
  }
});

test.each([
  ['a wrong secret', basic('rp', 'nope'), {}, 401, 'invalid_request', 'Authentication failed.'],
  ['a request_uri', undefined, { request_uri: 'urn:x' }, 400, 'invalid_request', 'It is not allowed to include request_uri to PAR.'],
  [
    'an unknown redirect URI',
    undefined,
    { redirect_uri: 'http://evil.example/' },
    400,
    'invalid_request',
    'Invalid parameter: redirect_uri',
  ],
  ['no response_type', undefined, { response_type: '' }, 400, 'invalid_request', 'Missing parameter: response_type'],
  ['an unknown scope', undefined, { scope: 'openid nope' }, 400, 'invalid_request', 'Invalid scopes: openid nope'],
])('the PAR endpoint refuses %s', async (_what, auth, extra, status, error, description) => {
  const fields = Object.fromEntries(Object.entries(codeRequest(extra as Record<string, string>)).filter(([, v]) => v !== ''));
  const res = await push(fields, auth);
  expect([res.status, await res.json()]).toEqual([status, { error, error_description: description }]);
});

test('require.pushed.authorization.requests: a plain request goes back with Keycloak error, a pushed one logs in', async () => {
  await setAttributes('rp', { 'require.pushed.authorization.requests': 'true' });
  try {
    const q = redirectParams(await new Jar().fetch(authorize({ client_id: 'rp', ...codeRequest() })));
    expect([q.get('error'), q.get('error_description')]).toEqual(['invalid_request', 'Pushed Authorization Request is only allowed.']);
    const uri = ((await (await push(codeRequest())).json()) as { request_uri: string }).request_uri;
    expect(redirectParams(await signIn(new Jar(), authorize({ client_id: 'rp', request_uri: uri }))).get('code')).toBeTruthy();
  } finally {
    await setAttributes('rp', { 'require.pushed.authorization.requests': 'false' });
  }
});

test('a signed request object: its parameters win over the query; a bad signature or algorithm is an error page', async () => {
  const ro = await sign({ client_id: 'rp', state: 'from-object', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' });
  const back = await signIn(new Jar(), authorize({ client_id: 'rp', response_type: 'code', state: 'from-query', request: ro }));
  expect(redirectParams(back).get('state')).toBe('from-object');
  const forged = `${ro.slice(0, -4)}AAAA`;
  const bad = await new Jar().fetch(authorize({ client_id: 'rp', request: forged }));
  expect(bad.status).toBe(400);
  expect(pageError(await bad.text())).toBe('Invalid Request');
  await setAttributes('rp', { 'request.object.signature.alg': 'PS256' });
  try {
    expect((await new Jar().fetch(authorize({ client_id: 'rp', request: ro }))).status).toBe(400);
  } finally {
    await setAttributes('rp', { 'request.object.signature.alg': '' });
  }
  // HS256 with the client's secret.
  const hs = await new SignJWT({ client_id: 'rp', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 'hs' })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode('rp-secret'));
  expect(redirectParams(await signIn(new Jar(), authorize({ client_id: 'rp', request: hs }))).get('state')).toBe('hs');
});

test('a request_uri among the client request.uris is fetched; another is refused; request.object.required', async () => {
  served.set('/ro/1', await sign({ client_id: 'rp', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 'by-ref' }));
  const back = await signIn(new Jar(), authorize({ client_id: 'rp', request_uri: `${docsBase}/ro/1` }));
  expect(redirectParams(back).get('state')).toBe('by-ref');
  expect((await new Jar().fetch(authorize({ client_id: 'rp', request_uri: `${docsBase}/elsewhere` }))).status).toBe(400);
  await setAttributes('rp', { 'request.object.required': 'request' });
  try {
    const plain = await new Jar().fetch(authorize({ client_id: 'rp', ...codeRequest() }));
    expect(plain.status).toBe(400);
    const pushed = await push(codeRequest());
    expect([pushed.status, await pushed.json()]).toEqual([
      400,
      { error: 'invalid_request', error_description: "Client is required to use 'request' parameter." },
    ]);
    const ro = await sign({ client_id: 'rp', ...codeRequest() });
    const viaPar = await push({ request: ro });
    expect(viaPar.status).toBe(201);
  } finally {
    await setAttributes('rp', { 'request.object.required': 'not required' });
  }
});

test('two uses of one request_uri at once: one login page, one error page', async () => {
  const uri = ((await (await push(codeRequest())).json()) as { request_uri: string }).request_uri;
  const [a, b] = await Promise.all([0, 1].map(() => new Jar().fetch(authorize({ client_id: 'rp', request_uri: uri }))));
  expect([a.status, b.status].sort()).toEqual([200, 400]);
  // A request_uri of no pushed request, or of no UUID, is the same error page.
  for (const other of ['urn:ietf:params:oauth:request_uri:00000000-0000-0000-0000-000000000000', 'urn:ietf:params:oauth:request_uri:x']) {
    expect((await new Jar().fetch(authorize({ client_id: 'rp', request_uri: other }))).status).toBe(400);
  }
});

test('pushes are recorded as PUSHED_AUTHORIZATION_REQUEST events (and _ERROR with the error code) when the realm saves them', async () => {
  // As in Keycloak, these types are stored only when listed.
  const types = ['PUSHED_AUTHORIZATION_REQUEST', 'PUSHED_AUTHORIZATION_REQUEST_ERROR'];
  await w.api.put(`/admin/realms/${R}`, { enabledEventTypes: types }).expect(204);
  try {
    expect((await push(codeRequest())).status).toBe(201);
    expect((await push(codeRequest(), basic('rp', 'wrong'))).status).toBe(401);
  } finally {
    await w.api.put(`/admin/realms/${R}`, { enabledEventTypes: [] }).expect(204);
  }
  const events = async (type: string) => (await w.api.get(`/admin/realms/${R}/events?type=${type}&client=rp`).expect(200)).body;
  expect((await events('PUSHED_AUTHORIZATION_REQUEST'))[0]).toMatchObject({ type: 'PUSHED_AUTHORIZATION_REQUEST', clientId: 'rp' });
  expect((await events('PUSHED_AUTHORIZATION_REQUEST_ERROR'))[0]).toMatchObject({ error: 'invalid_request' });
});

describe('encrypted request objects (AuthzEndpointRequestObjectParser, DefaultTokenManager.decodeClientJWT)', () => {
  let enc: { key: KeyLike | Uint8Array; kid: string };
  beforeAll(async () => {
    const certs = (await (await fetch(`${w.base}/realms/${R}/protocol/openid-connect/certs`)).json()) as { keys: JWK[] };
    const jwk = certs.keys.find((k) => k.use === 'enc') as JWK;
    expect(jwk.alg).toBe('RSA-OAEP');
    enc = { key: await importJWK(jwk, 'RSA-OAEP'), kid: jwk.kid as string };
  });
  const seal = (content: string, header: Record<string, string> = {}, to: KeyLike | Uint8Array = enc.key) =>
    new CompactEncrypt(new TextEncoder().encode(content))
      .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256GCM', cty: 'JWT', kid: enc.kid, ...header })
      .encrypt(to);
  const request = (state: string) => ({ client_id: 'rp', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state });
  const pushedError = async (fields: Record<string, string>) => {
    const res = await push(fields);
    return [res.status, await res.json()];
  };

  test('a signed request object encrypted to the realm key: as request, by reference and pushed', async () => {
    const byValue = await seal(await sign(request('sealed')));
    expect(redirectParams(await signIn(new Jar(), authorize({ client_id: 'rp', request: byValue }))).get('state')).toBe('sealed');
    served.set('/ro/sealed', await seal(await sign(request('sealed-ref'))));
    const byRef = await signIn(new Jar(), authorize({ client_id: 'rp', request_uri: `${docsBase}/ro/sealed` }));
    expect(redirectParams(byRef).get('state')).toBe('sealed-ref');
    const pushed = await push({ request: await seal(await sign(request('sealed-par'))) });
    expect(pushed.status).toBe(201);
    const { request_uri } = (await pushed.json()) as { request_uri: string };
    expect(redirectParams(await signIn(new Jar(), authorize({ client_id: 'rp', request_uri }))).get('state')).toBe('sealed-par');
    // Without a kid: the realm's highest-priority encryption key.
    const sealedNoKid = await new CompactEncrypt(new TextEncoder().encode(await sign(request('no-kid'))))
      .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256GCM', cty: 'JWT' })
      .encrypt(enc.key);
    expect(redirectParams(await signIn(new Jar(), authorize({ client_id: 'rp', request: sealedNoKid }))).get('state')).toBe('no-kid');
    // Plain JSON inside: unsigned claims, only for a client whose request.object.signature.alg is none.
    const json = await seal(JSON.stringify(request('json')), { cty: 'JSON' });
    expect(await pushedError({ request: json })).toEqual([
      400,
      { error: 'invalid_request_object', error_description: "Failed to verify signature on 'request' object" },
    ]);
    await setAttributes('rp', { 'request.object.signature.alg': 'none' });
    try {
      expect(redirectParams(await signIn(new Jar(), authorize({ client_id: 'rp', request: json }))).get('state')).toBe('json');
    } finally {
      await setAttributes('rp', { 'request.object.signature.alg': '' });
    }
  });

  test("refusals: no such key, another key, a forged inner signature, the client's request.object.encryption.alg / .enc", async () => {
    const inner = await sign(request('x'));
    expect(await pushedError({ request: await seal(inner, { kid: 'nope' }) })).toEqual([
      400,
      { error: 'invalid_request_object', error_description: 'Could not find private key for decrypting token' },
    ]);
    const other = await generateKeyPair('RSA-OAEP');
    expect(await pushedError({ request: await seal(inner, {}, other.publicKey) })).toEqual([
      400,
      { error: 'invalid_request_object', error_description: 'Failed to decrypt JWT' },
    ]);
    // A symmetric algorithm the realm's keys cannot open.
    const dir = await new CompactEncrypt(new TextEncoder().encode(inner))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: enc.kid })
      .encrypt(new Uint8Array(32));
    expect(await pushedError({ request: dir })).toEqual([
      400,
      { error: 'invalid_request_object', error_description: 'Failed to decrypt JWT' },
    ]);
    expect(await pushedError({ request: await seal(`${inner.slice(0, -4)}AAAA`) })).toEqual([
      400,
      { error: 'invalid_request_object', error_description: "Failed to verify signature on 'request' object" },
    ]);
    expect(await pushedError({ request: await seal('not json') })).toEqual([
      400,
      { error: 'invalid_request_object', error_description: 'Failed to deserialize JWT' },
    ]);
    // An inner JWT of another algorithm than the client's: Keycloak's parser then reads it as JSON, and fails so.
    await setAttributes('rp', { 'request.object.signature.alg': 'PS256' });
    try {
      expect(await pushedError({ request: await seal(inner) })).toEqual([
        400,
        { error: 'invalid_request_object', error_description: 'Failed to deserialize JWT' },
      ]);
    } finally {
      await setAttributes('rp', { 'request.object.signature.alg': '' });
    }
    await setAttributes('rp', { 'request.object.encryption.alg': 'RSA-OAEP-256' });
    try {
      expect(await pushedError({ request: await seal(inner) })).toEqual([
        400,
        {
          error: 'invalid_request_object',
          error_description: 'Request object encrypted with different algorithm than client requested algorithm',
        },
      ]);
      await setAttributes('rp', { 'request.object.encryption.alg': 'RSA-OAEP', 'request.object.encryption.enc': 'A128CBC-HS256' });
      expect(await pushedError({ request: await seal(inner) })).toEqual([
        400,
        {
          error: 'invalid_request_object',
          error_description: 'Request object content encrypted with different algorithm than client requested algorithm',
        },
      ]);
      expect((await push({ request: await seal(inner, { enc: 'A128CBC-HS256' }) })).status).toBe(201);
    } finally {
      await setAttributes('rp', { 'request.object.encryption.alg': '', 'request.object.encryption.enc': '' });
    }
    // The browser sees Keycloak's error page.
    const page = await new Jar().fetch(authorize({ client_id: 'rp', request: await seal(inner, { kid: 'nope' }) }));
    expect(page.status).toBe(400);
    expect(pageError(await page.text())).toBe('Invalid Request');
  });

  test('secure-request-object encryption-required: a signed request object is refused, an encrypted one passes', async () => {
    const base = `/admin/realms/${R}/client-policies`;
    await w.api
      .put(`${base}/profiles`, {
        profiles: [
          {
            name: 'ro',
            executors: [{ executor: 'secure-request-object', configuration: { 'verify-nbf': false, 'encryption-required': true } }],
          },
        ],
      })
      .expect(204);
    await w.api
      .put(`${base}/policies`, {
        policies: [{ name: 'ro', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['ro'] }],
      })
      .expect(204);
    try {
      const claims = { ...request('enc-req'), aud: `${w.base}/realms/${R}` };
      const plain = redirectParams(await new Jar().fetch(authorize({ client_id: 'rp', request: await sign(claims) })));
      expect([plain.get('error'), plain.get('error_description')]).toEqual(['invalid_request_object', 'Request object not encrypted']);
      const sealed = await signIn(new Jar(), authorize({ client_id: 'rp', request: await seal(await sign(claims)) }));
      expect(redirectParams(sealed).get('state')).toBe('enc-req');
    } finally {
      await w.api.put(`${base}/policies`, { policies: [] }).expect(204);
    }
  });

  test('discovery lists the request object encryption algorithms', async () => {
    const doc = (await (await fetch(`${w.base}/realms/${R}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
    expect(doc.request_object_encryption_alg_values_supported).toEqual(expect.arrayContaining(['RSA-OAEP', 'RSA-OAEP-256']));
    expect(doc.request_object_encryption_enc_values_supported).toEqual(expect.arrayContaining(['A256GCM', 'A128CBC-HS256']));
  });
});
