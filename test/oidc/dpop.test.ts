import request from 'supertest';
import { SignJWT } from 'jose';
import { clientUuid, createClient, createUser } from '../helpers/fixtures';
import { type DPoPKey, dpopKey, dpopProof, payloadOf } from '../helpers/dpop';
import { startTestServer, type TestServer } from '../helpers/server';
import { basic, EVENT_TYPES, type RpFixture, rpFixture } from './rp-fixture';

/**
 * DPoP (RFC 9449, ADR 0038) as Keycloak 26: proofs at the token endpoint for every grant, tokens
 * bound to the proof's key (`cnf.jkt`, type DPoP), public clients' refresh tokens bound too, the
 * `dpop.bound.access.tokens` client attribute, userinfo and the admin API taking a DPoP-bound token
 * only with a matching proof, introspection showing the binding, discovery listing the algorithms.
 */
let ts: TestServer;
let rp: RpFixture;
let key: DPoPKey;
const R = 'dpop';
const TOKEN = `/realms/${R}/protocol/openid-connect/token`;
const USERINFO = `/realms/${R}/protocol/openid-connect/userinfo`;

beforeAll(async () => {
  ts = await startTestServer();
  rp = await rpFixture(ts, R);
  key = await dpopKey();
  await createClient(rp.admin, R, {
    clientId: 'bound',
    publicClient: false,
    secret: 'bound-secret',
    directAccessGrantsEnabled: true,
    serviceAccountsEnabled: true,
    attributes: { 'dpop.bound.access.tokens': 'true' },
  });
  const events = await rp.admin.put(`/admin/realms/${R}/events/config`, {
    eventsEnabled: true,
    enabledEventTypes: [...EVENT_TYPES, 'LOGIN_ERROR'],
  });
  expect(events.status).toBe(204);
});
afterAll(() => ts.close());

/** A password grant for alice through `clientId` with the given DPoP header (none when undefined). */
function passwordGrant(clientId: string, proof: string | undefined, secret = clientId === 'spa' ? undefined : `${clientId}-secret`) {
  const req = request(ts.app).post(TOKEN).type('form');
  if (proof !== undefined) req.set('DPoP', proof);
  return req.send({
    grant_type: 'password',
    client_id: clientId,
    ...(secret ? { client_secret: secret } : {}),
    username: 'alice',
    password: 'alice-pw',
    scope: 'openid',
  });
}

test('a password grant with a proof gets DPoP-bound tokens; a confidential client’s refresh token stays unbound', async () => {
  const res = await passwordGrant('web', await dpopProof(key, 'POST', TOKEN));
  expect(res.status).toBe(200);
  expect(res.body.token_type).toBe('DPoP');
  const access = payloadOf(res.body.access_token);
  expect(access.typ).toBe('DPoP');
  expect(access.cnf).toEqual({ jkt: key.jkt });
  expect(payloadOf(res.body.refresh_token).cnf).toBeUndefined();
  expect(payloadOf(res.body.id_token).cnf).toBeUndefined();
});

test('without a proof the tokens are plain Bearer tokens', async () => {
  const res = await passwordGrant('web', undefined);
  expect(res.status).toBe(200);
  expect(res.body.token_type).toBe('Bearer');
  expect(payloadOf(res.body.access_token).cnf).toBeUndefined();
});

test('client_credentials with a proof binds the service account’s token', async () => {
  const res = await request(ts.app)
    .post(TOKEN)
    .type('form')
    .set('DPoP', await dpopProof(key, 'POST', TOKEN))
    .set('Authorization', basic('bound', 'bound-secret'))
    .send({ grant_type: 'client_credentials' });
  expect(res.status).toBe(200);
  expect(res.body.token_type).toBe('DPoP');
  expect(payloadOf(res.body.access_token).cnf).toEqual({ jkt: key.jkt });
});

test('a client with dpop.bound.access.tokens gets no token without a proof', async () => {
  const res = await passwordGrant('bound', undefined);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: 'invalid_request', error_description: 'DPoP proof is missing' });
  const [ev] = await rp.events('LOGIN_ERROR');
  expect(ev).toMatchObject({ error: 'invalid_dpop_proof', details: expect.objectContaining({ reason: 'DPoP proof is missing' }) });
});

test('bad proofs are refused with Keycloak’s reasons', async () => {
  const other = await dpopKey('RS256');
  const hmac = await new SignJWT({ jti: 'x', htm: 'POST', htu: `http://localhost:8080${TOKEN}`, iat: Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'HS256' })
    .sign(new TextEncoder().encode('0123456789abcdef0123456789abcdef'));
  const privateJwk = { ...other.jwk, d: 'AAAA' };
  const cases: Array<[string, string]> = [
    [await dpopProof(key, 'POST', TOKEN, { header: { typ: 'JWT' } }), 'Invalid or missing type in DPoP header: JWT'],
    [hmac, 'Unsupported DPoP algorithm: HS256'],
    [await dpopProof(other, 'POST', TOKEN, { header: { jwk: privateJwk } }), 'Private key is present in DPoP header'],
    [await dpopProof(key, 'POST', TOKEN, { header: { jwk: other.jwk } }), 'DPoP verification failure: Invalid token signature'],
    [await dpopProof(key, 'POST', TOKEN, { claims: { jti: undefined } }), 'DPoP mandatory claims are missing'],
    [await dpopProof(key, 'GET', TOKEN), 'DPoP HTTP method mismatch'],
    [await dpopProof(key, 'POST', `/realms/${R}/protocol/openid-connect/userinfo`), 'DPoP HTTP URL mismatch'],
    [await dpopProof(key, 'POST', TOKEN, { claims: { iat: Math.floor(Date.now() / 1000) - 60 } }), 'DPoP proof is not active'],
    [await dpopProof(key, 'POST', TOKEN, { claims: { iat: Math.floor(Date.now() / 1000) + 60 } }), 'DPoP proof is not active'],
    ['not-a-jwt', 'DPoP header verification failure'],
  ];
  for (const [proof, reason] of cases) {
    const res = await passwordGrant('web', proof);
    expect({ reason, status: res.status, body: res.body }).toEqual({
      reason,
      status: 400,
      body: { error: 'invalid_request', error_description: reason },
    });
  }
});

test('a proof works once: the same proof again is a replay', async () => {
  const proof = await dpopProof(key, 'POST', TOKEN);
  expect((await passwordGrant('web', proof)).status).toBe(200);
  const again = await passwordGrant('web', proof);
  expect(again.status).toBe(400);
  expect(again.body.error_description).toBe('DPoP proof has already been used');
});

test('the proof’s htu may carry a query; the query is ignored', async () => {
  const res = await passwordGrant('web', await dpopProof(key, 'POST', `http://localhost:8080${TOKEN}?x=1`));
  expect(res.status).toBe(200);
});

describe('a public client’s refresh token is bound to the key', () => {
  let refresh: string;
  beforeAll(async () => {
    const res = await passwordGrant('spa', await dpopProof(key, 'POST', TOKEN));
    expect(res.status).toBe(200);
    refresh = res.body.refresh_token;
    expect(payloadOf(refresh).cnf).toEqual({ jkt: key.jkt });
  });
  const refreshWith = (proof?: string) => {
    const req = request(ts.app).post(TOKEN).type('form');
    if (proof) req.set('DPoP', proof);
    return req.send({ grant_type: 'refresh_token', client_id: 'spa', refresh_token: refresh });
  };

  test('refreshing it without a proof fails', async () => {
    const res = await refreshWith();
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'DPoP proof is missing' });
  });

  test('refreshing it with another key fails', async () => {
    const res = await refreshWith(await dpopProof(await dpopKey(), 'POST', TOKEN));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: "DPoP confirmation doesn't match DPoP proof" });
  });

  test('refreshing it with the key gives new bound tokens', async () => {
    const res = await refreshWith(await dpopProof(key, 'POST', TOKEN));
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    expect(payloadOf(res.body.access_token).cnf).toEqual({ jkt: key.jkt });
    expect(payloadOf(res.body.refresh_token).cnf).toEqual({ jkt: key.jkt });
  });
});

describe('userinfo', () => {
  let token: string;
  beforeAll(async () => {
    token = (await passwordGrant('web', await dpopProof(key, 'POST', TOKEN))).body.access_token;
  });

  test('answers a DPoP token presented with the DPoP scheme and a proof naming it', async () => {
    const res = await request(ts.app)
      .get(USERINFO)
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', await dpopProof(key, 'GET', USERINFO, { accessToken: token }));
    expect(res.status).toBe(200);
    expect(res.body.sub).toBe(rp.alice);
  });

  test('refuses it as a Bearer token, without a proof, without ath, with another key', async () => {
    const bearer = await request(ts.app).get(USERINFO).set('Authorization', `Bearer ${token}`);
    expect(bearer.status).toBe(401);
    expect(bearer.headers['www-authenticate']).toBe(
      `Bearer realm="${R}", error="invalid_token", error_description="Token verification failed"`,
    );
    const noProof = await request(ts.app).get(USERINFO).set('Authorization', `DPoP ${token}`);
    expect(noProof.status).toBe(401);
    expect(noProof.headers['www-authenticate']).toBe(
      `DPoP realm="${R}", error="invalid_token", error_description="Token verification failed"`,
    );
    const noAth = await request(ts.app)
      .get(USERINFO)
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', await dpopProof(key, 'GET', USERINFO));
    expect(noAth.status).toBe(401);
    const otherKey = await request(ts.app)
      .get(USERINFO)
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', await dpopProof(await dpopKey(), 'GET', USERINFO, { accessToken: token }));
    expect(otherKey.status).toBe(401);
    const reasons = (await rp.events('USER_INFO_REQUEST_ERROR')).slice(0, 4).map((e) => (e.details as Record<string, string>).reason);
    expect(reasons).toEqual([
      "DPoP confirmation doesn't match DPoP proof",
      'No access token hash in DPoP proof',
      'DPoP proof is missing',
      'The access token type is DPoP but Authorization Header is not DPoP',
    ]);
  });

  test('refuses a Bearer token presented with the DPoP scheme', async () => {
    const plain = (await passwordGrant('web', undefined)).body.access_token;
    const res = await request(ts.app)
      .get(USERINFO)
      .set('Authorization', `DPoP ${plain}`)
      .set('DPoP', await dpopProof(key, 'GET', USERINFO, { accessToken: plain }));
    expect(res.status).toBe(401);
  });
});

test('introspection shows the binding and the DPoP type', async () => {
  const token = (await passwordGrant('web', await dpopProof(key, 'POST', TOKEN))).body.access_token;
  const res = await request(ts.app)
    .post(`${TOKEN}/introspect`)
    .type('form')
    .set('Authorization', basic('other', 'other-secret'))
    .send({ token });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
});

test('discovery lists the DPoP signing algorithms', async () => {
  const res = await request(ts.app).get(`/realms/${R}/.well-known/openid-configuration`);
  expect(res.body.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'RS256', 'PS256', 'EdDSA']));
  expect(res.body.dpop_signing_alg_values_supported).not.toContain('HS256');
});

describe('the admin API (Keycloak’s BearerTokenAuthenticator with DPoP)', () => {
  let token: string;
  const USERS = `/admin/realms/${R}/users`;
  beforeAll(async () => {
    await createUser(ts, R, 'viewer', { roles: ['view-users'] });
    const res = await request(ts.app)
      .post(TOKEN)
      .type('form')
      .set('DPoP', await dpopProof(key, 'POST', TOKEN))
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'viewer', password: 'pw' });
    expect(res.status).toBe(200);
    token = res.body.access_token;
    expect(payloadOf(token).typ).toBe('DPoP');
  });

  test('takes a DPoP-bound token with the DPoP scheme and a proof of the request', async () => {
    const res = await request(ts.app)
      .get(USERS)
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', await dpopProof(key, 'GET', USERS, { accessToken: token }));
    expect(res.status).toBe(200);
  });

  test('refuses it as a Bearer token, without a proof, with a replayed proof or a proof of another request', async () => {
    expect((await request(ts.app).get(USERS).set('Authorization', `Bearer ${token}`)).status).toBe(401);
    expect((await request(ts.app).get(USERS).set('Authorization', `DPoP ${token}`)).status).toBe(401);
    const proof = await dpopProof(key, 'GET', USERS, { accessToken: token });
    expect((await request(ts.app).get(USERS).set('Authorization', `DPoP ${token}`).set('DPoP', proof)).status).toBe(200);
    expect((await request(ts.app).get(USERS).set('Authorization', `DPoP ${token}`).set('DPoP', proof)).status).toBe(401);
    const other = await dpopProof(key, 'GET', `/admin/realms/${R}/groups`, { accessToken: token });
    expect((await request(ts.app).get(USERS).set('Authorization', `DPoP ${token}`).set('DPoP', other)).status).toBe(401);
  });

  test('refuses a plain token of a client that requires DPoP', async () => {
    const id = await clientUuid(rp.admin, R, 'admin-cli');
    const plain = (
      await request(ts.app)
        .post(TOKEN)
        .type('form')
        .send({ grant_type: 'password', client_id: 'admin-cli', username: 'viewer', password: 'pw' })
    ).body.access_token as string;
    expect((await request(ts.app).get(USERS).set('Authorization', `Bearer ${plain}`)).status).toBe(200);
    const rep = (await rp.admin.get(`/admin/realms/${R}/clients/${id}`)).body;
    expect(
      (
        await rp.admin.put(`/admin/realms/${R}/clients/${id}`, {
          ...rep,
          attributes: { ...rep.attributes, 'dpop.bound.access.tokens': 'true' },
        })
      ).status,
    ).toBe(204);
    try {
      expect((await request(ts.app).get(USERS).set('Authorization', `Bearer ${plain}`)).status).toBe(401);
    } finally {
      await rp.admin.put(`/admin/realms/${R}/clients/${id}`, rep);
    }
  });
});

describe('dpop-bind-enforcer on revocation (DPoPBindEnforcerExecutor, TOKEN_REVOKE)', () => {
  const base = `/admin/realms/${R}`;
  const REVOKE = `/realms/${R}/protocol/openid-connect/revoke`;
  beforeAll(async () => {
    await rp.admin
      .put(`${base}/client-policies/profiles`, {
        profiles: [{ name: 'dpop', executors: [{ executor: 'dpop-bind-enforcer', configuration: {} }] }],
      })
      .expect(204);
  });
  afterEach(() => rp.admin.put(`${base}/client-policies/policies`, { policies: [] }).expect(204));
  const enforce = () =>
    rp.admin
      .put(`${base}/client-policies/policies`, {
        policies: [
          {
            name: 'dpop',
            enabled: true,
            conditions: [{ condition: 'client-access-type', configuration: { type: ['confidential'] } }],
            profiles: ['dpop'],
          },
        ],
      })
      .expect(204);
  const revoke = (token: string, proof?: string) => {
    const req = request(ts.app).post(REVOKE).type('form').set('Authorization', basic('web', 'web-secret'));
    if (proof) req.set('DPoP', proof);
    return req.send({ token });
  };
  const err = (res: request.Response) => [res.status, res.body];

  test('needs a valid proof, and the revoked token bound to its key', async () => {
    const bound = (await passwordGrant('web', await dpopProof(key, 'POST', TOKEN))).body;
    const plain = (await passwordGrant('web', undefined)).body;
    await enforce();
    expect(err(await revoke(bound.access_token))).toEqual([
      400,
      { error: 'invalid_dpop_proof', error_description: 'DPoP proof is missing' },
    ]);
    expect(err(await revoke(bound.access_token, await dpopProof(key, 'POST', '/realms/dpop/protocol/openid-connect/token')))).toEqual([
      400,
      { error: 'invalid_dpop_proof', error_description: 'DPoP HTTP URL mismatch' },
    ]);
    const mismatch = { error: 'invalid_token', error_description: 'DPoP proof and token binding verification failed' };
    expect(err(await revoke(plain.access_token, await dpopProof(key, 'POST', REVOKE)))).toEqual([400, mismatch]);
    expect(err(await revoke(bound.access_token, await dpopProof(await dpopKey(), 'POST', REVOKE)))).toEqual([400, mismatch]);
    const events = (await rp.admin.get(`${base}/events?type=REVOKE_GRANT_ERROR&client=web`).expect(200)).body;
    expect(events[0]).toMatchObject({ error: 'invalid_token', details: expect.objectContaining({ client_policy_error: 'invalid_token' }) });
    // The bound token with a proof of its key is revoked.
    expect((await revoke(bound.access_token, await dpopProof(key, 'POST', REVOKE))).status).toBe(200);
    const introspected = await request(ts.app)
      .post(`${TOKEN}/introspect`)
      .type('form')
      .set('Authorization', basic('web', 'web-secret'))
      .send({ token: bound.access_token });
    expect(introspected.body.active).toBe(false);
  });

  test('a client the policy does not cover revokes as before', async () => {
    await enforce();
    const spa = (await passwordGrant('spa', undefined)).body;
    const res = await request(ts.app).post(REVOKE).type('form').send({ token: spa.refresh_token, client_id: 'spa' });
    expect(res.status).toBe(200);
  });
});
