import { createHash, generateKeyPairSync } from 'node:crypto';
import { compactDecrypt, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, exportJWK, type JWTPayload, jwtVerify } from 'jose';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, pkcePair, REDIRECT, signIn } from './browser-client';

/**
 * The implicit and hybrid flows and the response modes of the authorization endpoint (issues 14 and
 * 16), as Keycloak 26 serves them: OIDCResponseType (code, token, id_token, none), OIDCResponseMode
 * (query, fragment, form_post, and JARM's query.jwt, fragment.jwt, form_post.jwt, jwt),
 * AuthorizationEndpointChecker's errors, OIDCLoginProtocol.authenticated's parameters and
 * TokenManager's at_hash / c_hash / s_hash (HashUtils: the left half of the algorithm's hash).
 * Signatures are verified with jose against the realm's published keys.
 */
const R = 'modes';
let w: LoginWorld;
let issuer: string;
let jwks: ReturnType<typeof createRemoteJWKSet>;
const enc = generateKeyPairSync('rsa', { modulusLength: 2048 });

const client = (clientId: string, extra: Record<string, unknown> = {}) =>
  w.api
    .post(`/admin/realms/${R}/clients`, {
      clientId,
      publicClient: true,
      implicitFlowEnabled: true,
      redirectUris: [REDIRECT],
      ...extra,
    })
    .expect(201);

beforeAll(async () => {
  w = await loginWorld(R);
  issuer = `${w.base}/realms/${R}`;
  await client('imp');
  await client('imp-only', { standardFlowEnabled: false });
  await client('conf', { publicClient: false, secret: 'conf-secret' });
  await client('dpop', { attributes: { 'dpop.bound.access.tokens': 'true' } });
  await client('detached', { attributes: { 'id.token.as.detached.signature': 'true' } });
  // A PS256 key of the realm signs the responses of `jarm-ps`; the realm has no ES256 key for `jarm-es`.
  const realmId = (await w.api.get(`/admin/realms/${R}`).expect(200)).body.id;
  await w.api
    .post(`/admin/realms/${R}/components`, {
      name: 'rsa-ps256',
      providerId: 'rsa-generated',
      providerType: 'org.keycloak.keys.KeyProvider',
      parentId: realmId,
      config: { priority: ['50'], algorithm: ['PS256'] },
    })
    .expect(201);
  await client('jarm-ps', { attributes: { 'authorization.signed.response.alg': 'PS256' } });
  await client('jarm-es', { attributes: { 'authorization.signed.response.alg': 'ES256' } });
  const encJwk = { ...(await exportJWK(enc.publicKey)), kid: 'enc-1', use: 'enc', alg: 'RSA-OAEP' };
  await client('jarm-enc', {
    attributes: {
      'use.jwks.string': 'true',
      'jwks.string': JSON.stringify({ keys: [encJwk] }),
      'authorization.encrypted.response.alg': 'RSA-OAEP',
      'authorization.encrypted.response.enc': 'A256GCM',
    },
  });
  await client('jarm-nokey', {
    attributes: { 'authorization.encrypted.response.alg': 'RSA-OAEP', 'authorization.encrypted.response.enc': 'A256GCM' },
  });
  // Remote, fetched again for an unknown kid: fallback keys are made on first use.
  jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`), { cooldownDuration: 0 });
});
afterAll(() => w?.ts.close());

/** Parameters of the response: the Location's query or fragment, or the form_post page's hidden fields. */
async function responseOf(res: Response): Promise<{ where: 'query' | 'fragment' | 'form_post'; params: URLSearchParams; html?: string }> {
  if (res.status === 200) {
    const html = await res.text();
    const fields = new URLSearchParams();
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(m[1], m[2].replace(/&amp;/g, '&'));
    return { where: 'form_post', params: fields, html };
  }
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  if (location.hash) return { where: 'fragment', params: new URLSearchParams(location.hash.slice(1)) };
  return { where: 'query', params: location.searchParams };
}

const half = (hash: 'sha256' | 'sha384' | 'sha512', value: string) => {
  const d = createHash(hash).update(value).digest();
  return d.subarray(0, d.length / 2).toString('base64url');
};
const verify = async (jwt: string) => (await jwtVerify(jwt, jwks, { issuer })).payload;
const authUrl = (params: Record<string, string>) => w.authUrl({ client_id: 'imp', nonce: 'n-1', ...params });

describe('response types', () => {
  test.each([
    ['code', 'query', ['code']],
    ['none', 'query', []],
    ['id_token', 'fragment', ['id_token']],
    ['token', 'fragment', ['access_token']],
    ['id_token token', 'fragment', ['id_token', 'access_token']],
    ['code id_token', 'fragment', ['code', 'id_token']],
    ['code token', 'fragment', ['code', 'access_token']],
    ['code id_token token', 'fragment', ['code', 'id_token', 'access_token']],
  ])('%s: sent in the %s, with %j', async (type, where, carried) => {
    const back = await responseOf(await signIn(new Jar(), authUrl({ response_type: type })));
    expect(back.where).toBe(where);
    const p = back.params;
    expect([p.get('state'), p.get('iss'), p.get('session_state')]).toEqual(['st-1', issuer, expect.any(String)]);
    for (const k of ['code', 'id_token', 'access_token']) expect([k, p.has(k)]).toEqual([k, carried.includes(k)]);
    expect(p.has('refresh_token')).toBe(false);
    if (p.has('access_token')) {
      expect([p.get('token_type'), p.get('expires_in')]).toEqual(['Bearer', '300']);
      const at = await verify(p.get('access_token') as string);
      expect([at.typ, at.azp, at.sid]).toEqual(['Bearer', 'imp', p.get('session_state')]);
    } else expect(p.has('token_type')).toBe(false);
    if (p.has('id_token')) {
      const id = await verify(p.get('id_token') as string);
      expect([id.typ, id.aud, id.nonce, id.sid, id.preferred_username]).toEqual(['ID', 'imp', 'n-1', p.get('session_state'), 'alice']);
      expect(typeof id.auth_time).toBe('number');
      // RS256: SHA-256, left half (TokenManager.generateAccessTokenHash / generateCodeHash / generateStateHash).
      expect(id.s_hash).toBe(half('sha256', 'st-1'));
      expect(id.c_hash).toBe(p.has('code') ? half('sha256', p.get('code') as string) : undefined);
      expect(id.at_hash).toBe(p.has('access_token') ? half('sha256', p.get('access_token') as string) : undefined);
    }
  });

  test('the implicit flow creates an SSO session (no refresh token): the next request gets tokens without a form', async () => {
    const jar = new Jar();
    const first = (await responseOf(await signIn(jar, authUrl({ response_type: 'id_token token' })))).params;
    const sessions = (await w.api.get(`/admin/realms/${R}/users/${w.userId}/sessions`).expect(200)).body as Array<Record<string, unknown>>;
    const session = sessions.find((s) => s.id === first.get('session_state'));
    expect(Object.values((session?.clients ?? {}) as Record<string, string>)).toEqual(['imp']);
    const sso = await responseOf(await jar.fetch(authUrl({ response_type: 'id_token token', nonce: 'n-2' })));
    expect(sso.params.get('session_state')).toBe(first.get('session_state'));
    expect((await verify(sso.params.get('id_token') as string)).nonce).toBe('n-2');
    // The access token of the implicit flow is a bearer token of that session.
    const info = await fetch(`${issuer}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${sso.params.get('access_token')}` },
    });
    expect([info.status, ((await info.json()) as Record<string, unknown>).preferred_username]).toEqual([200, 'alice']);
  });

  test('a hybrid code is exchanged and refreshed at the token endpoint like any code', async () => {
    const { verifier, challenge } = pkcePair();
    const back = await responseOf(
      await signIn(
        new Jar(),
        authUrl({ client_id: 'conf', response_type: 'code id_token', code_challenge: challenge, code_challenge_method: 'S256' }),
      ),
    );
    const code = back.params.get('code') as string;
    const basic = `Basic ${Buffer.from('conf:conf-secret').toString('base64')}`;
    const token = async (form: Record<string, string>) => {
      const res = await fetch(w.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
        body: new URLSearchParams(form).toString(),
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };
    const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect((await verify(tokens.body.id_token)).nonce).toBe('n-1');
    expect(tokens.body.session_state).toBe(back.params.get('session_state'));
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
    expect(refreshed.status).toBe(200);
    // The code is single-use.
    expect((await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })).status).toBe(400);
  });

  test('exclude.issuer.from.auth.response and exclude.session.state.from.auth.response leave those out (JARM keeps its iss claim)', async () => {
    await client('quiet', {
      attributes: { 'exclude.issuer.from.auth.response': 'true', 'exclude.session.state.from.auth.response': 'true' },
    });
    const p = (await responseOf(await signIn(new Jar(), authUrl({ client_id: 'quiet', response_type: 'code id_token' })))).params;
    expect([p.has('iss'), p.has('session_state'), p.has('code'), p.get('state')]).toEqual([false, false, true, 'st-1']);
    const err = (await responseOf(await new Jar().fetch(authUrl({ client_id: 'quiet', response_type: 'nope' })))).params;
    expect([err.get('error'), err.has('iss')]).toEqual(['unsupported_response_type', false]);
    const jwt = (await responseOf(await signIn(new Jar(), authUrl({ client_id: 'quiet', response_type: 'code', response_mode: 'jwt' }))))
      .params;
    const claims = await verify(jwt.get('response') as string);
    expect([claims.iss, claims.session_state]).toEqual([issuer, undefined]);
  });

  test('id.token.as.detached.signature: the ID token carries no user claims, only its own and the hashes', async () => {
    const p = (await responseOf(await signIn(new Jar(), authUrl({ client_id: 'detached', response_type: 'code id_token' })))).params;
    const id = await verify(p.get('id_token') as string);
    expect(id.preferred_username).toBeUndefined();
    expect(id.email).toBeUndefined();
    expect([id.sub, id.nonce, id.c_hash, id.s_hash]).toEqual([
      w.userId,
      'n-1',
      half('sha256', p.get('code') as string),
      half('sha256', 'st-1'),
    ]);
  });
});

describe('errors (AuthorizationEndpointChecker), in the mode they belong to', () => {
  /** The authorization request without a login: where its error went, error, description, state. */
  const errorOf = async (params: Record<string, string | undefined>) => {
    const url = new URL(authUrl({}));
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined) url.searchParams.delete(k);
      else url.searchParams.set(k, v);
    }
    const back = await responseOf(await new Jar().fetch(url.href));
    return [back.where, back.params.get('error'), back.params.get('error_description'), back.params.get('state')];
  };
  const notAllowed = (why: string) => `Client is not allowed to initiate browser login with given response_type. ${why}`;
  test.each([
    [{ response_type: 'token id_token nope' }, ['query', 'unsupported_response_type', null, 'st-1']],
    [{ response_type: 'none code' }, ['query', 'unsupported_response_type', null, 'st-1']],
    [{ response_type: 'bad', response_mode: 'fragment' }, ['fragment', 'unsupported_response_type', null, 'st-1']],
    [{ response_type: 'bad', response_mode: 'form_post' }, ['form_post', 'unsupported_response_type', null, 'st-1']],
    [{ response_type: 'token', response_mode: 'bogus' }, ['query', 'invalid_request', 'Invalid parameter: response_mode', 'st-1']],
    [
      { response_type: 'token', response_mode: 'query' },
      ['query', 'invalid_request', "Response_mode 'query' not allowed for implicit or hybrid flow", 'st-1'],
    ],
    [
      { response_type: 'code id_token', client_id: 'imp-only' },
      ['fragment', 'unauthorized_client', notAllowed('Standard flow is disabled for the client.'), 'st-1'],
    ],
    [
      { response_type: 'none', client_id: 'imp-only' },
      ['query', 'unauthorized_client', notAllowed('Standard flow is disabled for the client.'), 'st-1'],
    ],
    [
      { response_type: 'code token', client_id: 'app' },
      ['fragment', 'unauthorized_client', notAllowed('Implicit flow is disabled for the client.'), 'st-1'],
    ],
    [
      { response_type: 'token', client_id: 'dpop' },
      [
        'fragment',
        'unauthorized_client',
        'DPoP is not supported for implicit and hybrid flows. Client requires DPoP bound access tokens.',
        'st-1',
      ],
    ],
    [{ response_type: 'id_token token', nonce: undefined }, ['fragment', 'invalid_request', 'Missing parameter: nonce', 'st-1']],
    [
      { response_type: 'code id_token', nonce: undefined, response_mode: 'form_post' },
      ['form_post', 'invalid_request', 'Missing parameter: nonce', 'st-1'],
    ],
    [{ response_type: 'code token', scope: 'openid nope' }, ['fragment', 'invalid_scope', 'Invalid scopes: openid nope', 'st-1']],
  ])('%j → %j', async (params, expected) => {
    expect(await errorOf(params)).toEqual(expected);
  });

  test.each([
    [{ response_type: 'id_token token', nonce: '' }],
    [{ response_type: 'id_token', client_id: 'imp-only' }],
    [{ response_type: 'token', nonce: undefined }],
  ])('%j is accepted: the login form', async (params) => {
    const url = new URL(authUrl({}));
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined) url.searchParams.delete(k);
      else url.searchParams.set(k, v);
    }
    const page = await new Jar().fetch(url.href);
    expect(page.status).toBe(200);
    expect(formAction(await page.text())).toContain('/login-actions/authenticate');
  });

  test('the implicit flow needs no PKCE: a client requiring it is not asked for a challenge', async () => {
    await client('pkce-imp', { attributes: { 'pkce.code.challenge.method': 'S256' } });
    expect(await errorOf({ client_id: 'pkce-imp', response_type: 'code id_token' })).toEqual([
      'fragment',
      'invalid_request',
      'Missing parameter: code_challenge_method',
      'st-1',
    ]);
    const page = await new Jar().fetch(authUrl({ client_id: 'pkce-imp', response_type: 'id_token token' }));
    expect(page.status).toBe(200);
    expect(formAction(await page.text())).toContain('/login-actions/authenticate');
  });
});

describe('response modes', () => {
  test('form_post: an auto-submitting form with a visible submit button, values escaped', async () => {
    const back = await responseOf(
      await signIn(new Jar(), authUrl({ response_type: 'code id_token', response_mode: 'form_post', state: 'a"<b>&c' })),
    );
    expect(back.where).toBe('form_post');
    expect(back.html).toMatch(/<body onload="document.forms\[0\].submit\(\)">/);
    expect(back.html).toContain(`<form method="post" action="${REDIRECT}">`);
    expect(back.html).toMatch(/<button type="submit">Continue<\/button>/);
    expect(back.html).not.toContain('a"<b>');
    expect(back.params.get('state')).toBe('a&quot;&lt;b&gt;&c');
    expect(back.params.get('code')).toBeTruthy();
  });

  /** The claims of the JARM `response` parameter, its signature verified against the realm's keys. */
  const jarm = async (res: Response, where: string) => {
    const back = await responseOf(res);
    expect(back.where).toBe(where);
    expect([...back.params.keys()]).toEqual(['response']);
    const jwt = back.params.get('response') as string;
    const claims = await verify(jwt);
    return { claims, header: decodeProtectedHeader(jwt) };
  };

  test.each([
    ['code', 'query.jwt', 'query'],
    ['code', 'fragment.jwt', 'fragment'],
    ['code', 'form_post.jwt', 'form_post'],
    ['code', 'jwt', 'query'],
    ['code id_token', 'jwt', 'fragment'],
    ['code id_token token', 'form_post.jwt', 'form_post'],
  ])('JARM: %s with response_mode=%s → a signed `response` in the %s', async (type, mode, where) => {
    const before = Math.floor(Date.now() / 1000);
    const { claims, header } = await jarm(await signIn(new Jar(), authUrl({ response_type: type, response_mode: mode })), where);
    expect([header.alg, header.typ]).toEqual(['RS256', 'JWT']);
    expect([claims.iss, claims.aud, claims.state, claims.session_state]).toEqual([issuer, 'imp', 'st-1', expect.any(String)]);
    // accessCodeLifespan (60 s by default) is the response's lifetime.
    expect(Number(claims.exp) - before).toBeGreaterThanOrEqual(59);
    expect(Number(claims.exp) - before).toBeLessThanOrEqual(62);
    expect(typeof claims.code).toBe('string');
    if (type.split(' ').includes('id_token'))
      expect((await verify(String(claims.id_token))).c_hash).toBe(half('sha256', String(claims.code)));
    if (type.split(' ').includes('token')) expect(claims.token_type).toBe('Bearer');
  });

  test('JARM: the code of a query.jwt response is exchanged at the token endpoint', async () => {
    const { verifier, challenge } = pkcePair();
    const { claims } = await jarm(
      await signIn(new Jar(), w.authUrl({ response_mode: 'query.jwt', code_challenge: challenge, code_challenge_method: 'S256' })),
      'query',
    );
    expect((await exchange(w, String(claims.code), { code_verifier: verifier })).status).toBe(200);
  });

  test('JARM errors are signed responses too (in the parsed mode, or query.jwt for a bad response type)', async () => {
    const scope = await jarm(
      await new Jar().fetch(authUrl({ response_type: 'code', response_mode: 'jwt', scope: 'openid nope' })),
      'query',
    );
    expect([scope.claims.error, scope.claims.error_description, scope.claims.state, scope.claims.aud]).toEqual([
      'invalid_scope',
      'Invalid scopes: openid nope',
      'st-1',
      'imp',
    ]);
    const bad = await jarm(await new Jar().fetch(authUrl({ response_type: 'codes', response_mode: 'jwt' })), 'query');
    expect(bad.claims.error).toBe('unsupported_response_type');
    // query.jwt carries tokens only when the response is encrypted.
    const plain = await jarm(await new Jar().fetch(authUrl({ response_type: 'code id_token', response_mode: 'query.jwt' })), 'query');
    expect([plain.claims.error, plain.claims.error_description]).toEqual([
      'invalid_request',
      "Response_mode 'query.jwt' is allowed only when the authorization response token is encrypted",
    ]);
  });

  test("authorization.signed.response.alg: signed by the realm's active key of that algorithm; with none, by Keycloak's fallback key made for it", async () => {
    const ps = await jarm(await signIn(new Jar(), authUrl({ client_id: 'jarm-ps', response_type: 'code', response_mode: 'jwt' })), 'query');
    expect(ps.header.alg).toBe('PS256');
    expect(ps.claims.aud).toBe('jarm-ps');
    // No ES256 key in the realm: Keycloak's DefaultKeyManager has the ecdsa provider make a fallback key.
    const es = await jarm(await signIn(new Jar(), authUrl({ client_id: 'jarm-es', response_type: 'code', response_mode: 'jwt' })), 'query');
    expect(es.header.alg).toBe('ES256');
    expect(es.claims.aud).toBe('jarm-es');
  });

  test('authorization.encrypted.response.*: the signed response is encrypted to the client key (query.jwt may then carry tokens)', async () => {
    const back = await responseOf(
      await signIn(new Jar(), authUrl({ client_id: 'jarm-enc', response_type: 'code id_token', response_mode: 'query.jwt' })),
    );
    expect(back.where).toBe('query');
    const jwe = back.params.get('response') as string;
    expect(decodeProtectedHeader(jwe)).toMatchObject({ alg: 'RSA-OAEP', enc: 'A256GCM', kid: 'enc-1' });
    const inner = new TextDecoder().decode((await compactDecrypt(jwe, enc.privateKey)).plaintext);
    const claims: JWTPayload = await verify(inner);
    expect([claims.aud, claims.state]).toEqual(['jarm-enc', 'st-1']);
    expect(decodeJwt(String(claims.id_token)).c_hash).toBe(half('sha256', String(claims.code)));
  });

  test('an encrypted response for a client without an encryption key is the internal-error page, not a response it cannot read', async () => {
    const res = await signIn(new Jar(), authUrl({ client_id: 'jarm-nokey', response_type: 'code', response_mode: 'jwt' }));
    expect(res.status).toBe(500);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('An unexpected error happened while handling your request.');
  });
});

test('discovery lists the JARM algorithms served (the response types and modes are pinned with the whole document in tokens.test.ts)', async () => {
  const doc = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  expect(doc.grant_types_supported).toContain('implicit');
  // The realm's active signing keys: RS256, the PS256 key added above, its HMAC key and the ES256 fallback key made above.
  expect(doc.authorization_signing_alg_values_supported).toEqual(['ES256', 'HS512', 'PS256', 'RS256']);
  expect(doc.authorization_encryption_alg_values_supported).toContain('RSA-OAEP');
  expect(doc.authorization_encryption_enc_values_supported).toContain('A256GCM');
});
