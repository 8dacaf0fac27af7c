import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createClient } from '../helpers/fixtures';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, REDIRECT, redirectParams, signIn } from './browser-client';

/**
 * Logout to the clients of an SSO session (issue 14): front-channel (the logout page frames each
 * client's frontchannel.logout.url with iss and sid, then goes on to post_logout_redirect_uri) and
 * back-channel (a signed logout token POSTed to backchannel.logout.url, received here by a real HTTP
 * listener) for RP-initiated logout, admin logout of a user and deletion of a session; a receiver
 * that does not answer delays the request by the bounded timeout at most.
 */
let w: LoginWorld;
let receiver: Server;
let receiverUrl: string;
const received: Array<{ path: string; body: string; type?: string }> = [];
const R = 'login-chan';

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ path: String(req.url), body, type: req.headers['content-type'] });
      // /slow never answers (the server's bounded timeout ends the call).
      if (req.url?.startsWith('/slow')) return;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  w = await loginWorld(R);
  await createClient(w.api, R, {
    clientId: 'front',
    name: 'Front App',
    publicClient: true,
    redirectUris: [REDIRECT],
    frontchannelLogout: true,
    attributes: { 'frontchannel.logout.url': 'http://front.example/logout', 'post.logout.redirect.uris': '+' },
  });
  await createClient(w.api, R, {
    clientId: 'back',
    publicClient: true,
    redirectUris: [REDIRECT],
    frontchannelLogout: false,
    attributes: {
      'backchannel.logout.url': `${receiverUrl}/backchannel`,
      'backchannel.logout.session.required': 'true',
      'backchannel.logout.revoke.offline.tokens': 'true',
    },
  });
}, 90_000);
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await w?.ts.close();
});
beforeEach(() => {
  received.length = 0;
});

const iss = () => `${w.base}/realms/${R}`;
const jwks = () => createRemoteJWKSet(new URL(`${iss()}/protocol/openid-connect/certs`));

/** Signs in to `front` (tokens exchanged) and then, by SSO, to `back`: the session's two clients. */
async function signedInToBoth(): Promise<{ jar: Jar; idToken: string; sid: string }> {
  const jar = new Jar();
  const res = await signIn(jar, w.authUrl({ client_id: 'front' }));
  const code = redirectParams(res).get('code') as string;
  const tokens = await exchange(w, code, { client_id: 'front' });
  const sso = await jar.fetch(w.authUrl({ client_id: 'back' }));
  expect(sso.status).toBe(302);
  return { jar, idToken: tokens.body.id_token as string, sid: redirectParams(res).get('session_state') as string };
}

/** The logout tokens the receiver got on `path`, verified with the realm's keys. */
async function logoutTokens(path = '/backchannel') {
  const out = [];
  for (const r of received.filter((x) => x.path === path)) {
    expect(r.type).toBe('application/x-www-form-urlencoded');
    const token = new URLSearchParams(r.body).get('logout_token') as string;
    expect(decodeProtectedHeader(token).typ).toBe('logout+jwt');
    out.push((await jwtVerify(token, jwks(), { issuer: iss(), audience: 'back' })).payload);
  }
  return out;
}

const clientRep = async (clientId: string) => (await w.api.get(`/admin/realms/${R}/clients?clientId=${clientId}`).expect(200)).body[0];

test('RP-initiated logout: a page framing the front-channel URL (iss, sid), a logout token to the back-channel client, then on to the redirect', async () => {
  const { jar, idToken, sid } = await signedInToBoth();
  const url = `${iss()}/protocol/openid-connect/logout?${new URLSearchParams({
    id_token_hint: idToken,
    post_logout_redirect_uri: REDIRECT,
    state: 'bye',
  })}`;
  const res = await jar.fetch(url);
  expect(res.status).toBe(200);
  const html = (await res.text()).replace(/&amp;/g, '&');
  const frame = /<iframe src="([^"]+)"/.exec(html)?.[1] as string;
  const called = new URL(frame);
  expect(`${called.origin}${called.pathname}`).toBe('http://front.example/logout');
  expect(called.searchParams.get('sid')).toBe(sid);
  expect(called.searchParams.get('iss')).toBe(iss());
  expect(html).toContain('Front App');
  expect(/<a id="continue" href="([^"]+)"/.exec(html)?.[1]).toBe(`${REDIRECT}?state=bye`);
  // The realm's CSP lets the page frame the client's origin (Keycloak's allowFrameSrc).
  expect(res.headers.get('content-security-policy')).toContain("frame-src 'self' http://front.example;");
  // The SSO cookies are gone and the session with them.
  expect(jar.cookies.has('KEYCLOAK_IDENTITY')).toBe(false);
  expect((await w.api.get(`/admin/realms/${R}/users/${w.userId}/sessions`).expect(200)).body).toEqual([]);
  const [claims] = await logoutTokens();
  expect(claims).toMatchObject({
    iss: iss(),
    aud: 'back',
    sub: w.userId,
    sid,
    typ: 'Logout',
    events: { 'http://schemas.openid.net/event/backchannel-logout': {}, revoke_offline_access: true },
  });
  expect(Number(claims.exp) - Number(claims.iat)).toBe(120);
  // The front-channel client gets no back-channel call.
  expect(received.map((r) => r.path)).toEqual(['/backchannel']);
});

test('without session required: the front-channel URL has no iss/sid and the logout token no sid; no redirect: the page says logged out', async () => {
  const front = await clientRep('front');
  const back = await clientRep('back');
  const put = (rep: Record<string, unknown>, attrs: Record<string, string>) =>
    w.api.put(`/admin/realms/${R}/clients/${rep.id}`, { ...rep, attributes: { ...(rep.attributes as object), ...attrs } }).expect(204);
  await put(front, { 'frontchannel.logout.session.required': 'false' });
  await put(back, { 'backchannel.logout.session.required': 'false' });
  try {
    const { jar, idToken } = await signedInToBoth();
    const res = await jar.fetch(`${iss()}/protocol/openid-connect/logout?${new URLSearchParams({ id_token_hint: idToken })}`);
    const html = (await res.text()).replace(/&amp;/g, '&');
    expect(/<iframe src="([^"]+)"/.exec(html)?.[1]).toBe('http://front.example/logout');
    expect(html).toContain('id="kc-info-message">You are logged out.');
    expect(html).not.toContain('id="continue"');
    const [claims] = await logoutTokens();
    expect(claims.sid).toBeUndefined();
    expect(claims.sub).toBe(w.userId);
  } finally {
    await put(front, { 'frontchannel.logout.session.required': 'true' });
    await put(back, { 'backchannel.logout.session.required': 'true' });
  }
});

test('admin logout of the user and deletion of a session send the logout token', async () => {
  const first = await signedInToBoth();
  await w.api.post(`/admin/realms/${R}/users/${w.userId}/logout`).expect(204);
  expect((await logoutTokens()).map((c) => c.sid)).toEqual([first.sid]);
  received.length = 0;
  const second = await signedInToBoth();
  await w.api.delete(`/admin/realms/${R}/sessions/${second.sid}`).expect(204);
  expect((await logoutTokens()).map((c) => c.sid)).toEqual([second.sid]);
});

test('a receiver that never answers delays the admin logout by the bounded timeout at most', async () => {
  const back = await clientRep('back');
  await w.api
    .put(`/admin/realms/${R}/clients/${back.id}`, {
      ...back,
      attributes: { ...back.attributes, 'backchannel.logout.url': `${receiverUrl}/slow` },
    })
    .expect(204);
  try {
    await signedInToBoth();
    const started = Date.now();
    await w.api.post(`/admin/realms/${R}/users/${w.userId}/logout`).expect(204);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(received.some((r) => r.path === '/slow')).toBe(true);
    expect((await w.api.get(`/admin/realms/${R}/users/${w.userId}/sessions`).expect(200)).body).toEqual([]);
  } finally {
    await w.api.put(`/admin/realms/${R}/clients/${back.id}`, back).expect(204);
  }
});

test('revoking a consent tells the client through its back channel', async () => {
  const back = await clientRep('back');
  await w.api.put(`/admin/realms/${R}/clients/${back.id}`, { ...back, consentRequired: true }).expect(204);
  try {
    const jar = new Jar();
    const page = await signIn(jar, w.authUrl({ client_id: 'back' }));
    const html = await page.text();
    expect(html).toContain('id="kc-oauth"');
    const granted = await jar.post(formAction(html), { accept: 'yes' });
    const sid = redirectParams(granted).get('session_state');
    await w.api.delete(`/admin/realms/${R}/users/${w.userId}/consents/back`).expect(204);
    expect((await logoutTokens()).map((c) => c.sid)).toEqual([sid]);
  } finally {
    await w.api.put(`/admin/realms/${R}/clients/${back.id}`, back).expect(204);
    await w.api.post(`/admin/realms/${R}/users/${w.userId}/logout`).expect(204);
  }
});
