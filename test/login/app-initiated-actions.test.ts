import { Secret, TOTP } from 'otpauth';
import { clock } from '../../src/core/clock';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, pageError, redirectParams, signIn } from './browser-client';

/**
 * UPDATE_PROFILE / VERIFY_PROFILE (the realm's user profile, its validators and permissions),
 * delete_credential, and application-initiated actions (`kc_action`, `kc_action_status`,
 * max_auth_age) through the browser login.
 */
let w: LoginWorld;
const R = '/admin/realms/login-aia';
beforeAll(async () => {
  w = await loginWorld('login-aia');
});
afterAll(() => w?.ts.close());

type Ev = { type: string; error?: string; details?: Record<string, string> };
const events = async (type: string) =>
  ((await w.api.get(`${R}/events?type=${type}&max=100`).expect(200)).body as Ev[]).filter((e) => e.type === type);
const setActions = async (actions: string[]) => {
  const user = (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
  await w.api.put(`${R}/users/${w.userId}`, { ...user, requiredActions: actions }).expect(204);
};
const alice = async () => (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
/** The error shown next to a field of the profile form. */
const fieldError = (html: string, name: string) => {
  const m = new RegExp(`id="input-error-${name}"[^>]*>([^<]*)<`).exec(html);
  return m ? m[1].replace(/&#39;/g, "'") : undefined;
};
const inputOf = (html: string, name: string) => new RegExp(`<input id="${name}" name="${name}"[^>]*>`).exec(html)?.[0];

/** A browser signed in to `app` (its first code exchanged). */
async function ssoBrowser(password = 'pw'): Promise<Jar> {
  const jar = new Jar();
  const res = await signIn(jar, w.authUrl(), 'alice', password);
  expect(res.status).toBe(302);
  expect((await exchange(w, redirectParams(res).get('code') as string)).status).toBe(200);
  return jar;
}

describe('UPDATE_PROFILE', () => {
  test('the profile form: errors per field leave the user unchanged; a valid form updates it and records UPDATE_PROFILE', async () => {
    await w.api
      .post(`${R}/users`, { username: 'other', enabled: true, email: 'taken@example.org', firstName: 'O', lastName: 'T' })
      .expect(201);
    await setActions(['UPDATE_PROFILE']);
    const jar = new Jar();
    const res = await signIn(jar, w.authUrl());
    expect(res.status).toBe(200);
    let html = await res.text();
    expect(html).toContain('Update Account Information');
    // The username is shown, read-only (editUsernameAllowed is off); the rest is editable.
    expect(inputOf(html, 'username')).toContain('readonly');
    expect(inputOf(html, 'email')).toContain('value="alice@example.org"');
    expect(inputOf(html, 'firstName')).not.toContain('readonly');
    expect(html).not.toContain('cancel-aia'); // not application-initiated: nothing to cancel

    let post = await jar.post(formAction(html), { username: 'hacker', email: 'not-an-email', firstName: '', lastName: 'L' });
    expect(post.status).toBe(400);
    html = await post.text();
    expect(fieldError(html, 'email')).toBe('Invalid email address.');
    expect(fieldError(html, 'firstName')).toBe('Please specify first name.');
    expect(fieldError(html, 'lastName')).toBeUndefined();
    // What was typed stays in the form.
    expect(inputOf(html, 'email')).toContain('value="not-an-email"');
    post = await jar.post(formAction(html), { email: 'taken@example.org', firstName: 'A', lastName: 'L' });
    html = await post.text();
    expect(fieldError(html, 'email')).toBe('Email already exists.');
    post = await jar.post(formAction(html), { email: 'a', firstName: 'A<b>', lastName: 'L' });
    html = await post.text();
    expect(fieldError(html, 'firstName')).toBe('Name contains invalid character.');
    let user = await alice();
    expect([user.username, user.email, user.firstName, user.lastName]).toEqual(['alice', 'alice@example.org', 'Alice', 'Liddell']);

    post = await jar.post(formAction(html), { username: 'hacker', email: 'Alice2@Example.org', firstName: 'Alicia', lastName: 'Liddell' });
    expect(post.status).toBe(302);
    expect(redirectParams(post).get('code')).toBeTruthy();
    user = await alice();
    expect(user.username).toBe('alice'); // not editable: ignored
    expect(user.email).toBe('alice2@example.org');
    expect(user.emailVerified).toBe(false); // a changed address is not verified
    expect(user.firstName).toBe('Alicia');
    expect(user.requiredActions).toEqual([]);
    const [ev] = await events('UPDATE_PROFILE');
    expect(ev.details).toMatchObject({
      context: 'UPDATE_PROFILE',
      previous_email: 'alice@example.org',
      updated_email: 'alice2@example.org',
      previous_first_name: 'Alice',
      updated_first_name: 'Alicia',
    });
    expect(ev.details?.previous_last_name).toBeUndefined();
    expect((await events('UPDATE_PROFILE_ERROR')).length).toBeGreaterThanOrEqual(3);
  });

  test("the realm's user profile: custom attributes with validators, scopes and permissions", async () => {
    const config = (await w.api.get(`${R}/users/profile`).expect(200)).body;
    config.attributes.push(
      {
        name: 'department',
        displayName: 'Department',
        validations: { length: { min: 2, max: 5 } },
        permissions: { view: ['admin', 'user'], edit: ['admin', 'user'] },
        required: { roles: ['user'] },
      },
      {
        name: 'level',
        displayName: 'Level',
        validations: { options: { options: ['junior', 'senior'] } },
        permissions: { view: ['user'], edit: ['admin'] },
      },
      { name: 'secretNote', permissions: { view: ['admin'], edit: ['admin'] } },
      { name: 'phone', permissions: { view: ['user'], edit: ['user'] }, selector: { scopes: ['phone'] } },
    );
    await w.api.put(`${R}/users/profile`, config).expect(200);
    const user = await alice();
    await w.api
      .put(`${R}/users/${w.userId}`, { ...user, attributes: { level: ['senior'], secretNote: ['x'] }, requiredActions: ['UPDATE_PROFILE'] })
      .expect(204);
    const jar = new Jar();
    let html = await (await signIn(jar, w.authUrl())).text();
    expect(html).toContain('<label for="department">Department *</label>');
    expect(inputOf(html, 'level')).toContain('readonly'); // the user may see it, not edit it
    expect(inputOf(html, 'level')).toContain('value="senior"');
    expect(html).not.toContain('secretNote'); // admin only
    expect(html).not.toContain('name="phone"'); // scope phone not requested
    let post = await jar.post(formAction(html), { email: 'alice2@example.org', firstName: 'A', lastName: 'L', department: 'toolong' });
    html = await post.text();
    expect(post.status).toBe(400);
    expect(fieldError(html, 'department')).toBe('Length must be between 2 and 5.');
    post = await jar.post(formAction(html), { email: 'alice2@example.org', firstName: 'A', lastName: 'L', department: '' });
    html = await post.text();
    expect(fieldError(html, 'department')).toBe('Please specify this field.');
    post = await jar.post(formAction(html), {
      email: 'alice2@example.org',
      firstName: 'A',
      lastName: 'L',
      department: 'R&D',
      level: 'junior',
    });
    expect(post.status).toBe(302);
    const after = await alice();
    expect(after.attributes.department).toEqual(['R&D']);
    expect(after.attributes.level).toEqual(['senior']); // read-only for the user
    const [ev] = await events('UPDATE_PROFILE');
    expect(ev.details).toMatchObject({ previous_department: '', updated_department: 'R&D' });
  });

  test('VERIFY_PROFILE: a profile that misses a required attribute is asked for at login, then the login goes on', async () => {
    await w.api
      .post(`${R}/users`, {
        username: 'nameless',
        enabled: true,
        email: 'nameless@example.org',
        credentials: [{ type: 'password', value: 'pw' }],
      })
      .expect(201);
    const jar = new Jar();
    const res = await signIn(jar, w.authUrl(), 'nameless', 'pw');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('id="kc-update-profile-form"');
    // The missing fields are marked from the start.
    expect(fieldError(html, 'firstName')).toBe('Please specify first name.');
    const [verify] = await events('VERIFY_PROFILE');
    expect(verify.details?.fields_to_update).toBe('firstName,lastName,department');
    const post = await jar.post(formAction(html), { email: 'nameless@example.org', firstName: 'N', lastName: 'L', department: 'Ops' });
    expect(post.status).toBe(302);
    expect(redirectParams(post).get('code')).toBeTruthy();
    // Valid now: the next login asks nothing.
    const again = await signIn(new Jar(), w.authUrl(), 'nameless', 'pw');
    expect(again.status).toBe(302);
  });
});

describe('kc_action', () => {
  beforeAll(async () => {
    // Back to the default user profile for these.
    const config = (await w.api.get(`${R}/users/profile`).expect(200)).body;
    config.attributes = config.attributes.filter((a: { name: string }) => ['username', 'email', 'firstName', 'lastName'].includes(a.name));
    await w.api.put(`${R}/users/profile`, config).expect(200);
  });

  test('UPDATE_PASSWORD over SSO: cancel goes back with kc_action_status=cancelled; the form done, success', async () => {
    const jar = await ssoBrowser();
    let res = await jar.fetch(w.authUrl({ kc_action: 'UPDATE_PASSWORD' }));
    expect(res.status).toBe(200);
    let html = await res.text();
    expect(html).toContain('name="password-new"');
    expect(html).toContain('name="cancel-aia"');
    res = await jar.post(formAction(html), { 'cancel-aia': 'true' });
    expect(res.status).toBe(302);
    let q = redirectParams(res);
    expect(q.get('kc_action')).toBe('UPDATE_PASSWORD');
    expect(q.get('kc_action_status')).toBe('cancelled');
    expect(q.get('state')).toBe('st-1');
    expect((await exchange(w, q.get('code') as string)).status).toBe(200); // still signed in

    html = await (await jar.fetch(w.authUrl({ kc_action: 'UPDATE_PASSWORD' }))).text();
    res = await jar.post(formAction(html), { 'password-new': 'a', 'password-confirm': 'b' });
    html = await res.text();
    expect(pageError(html)).toBe("Passwords don't match.");
    res = await jar.post(formAction(html), { 'password-new': 'newpw', 'password-confirm': 'newpw' });
    q = redirectParams(res);
    expect([q.get('kc_action'), q.get('kc_action_status')]).toEqual(['UPDATE_PASSWORD', 'success']);
    expect(q.get('code')).toBeTruthy();
    expect((await signIn(new Jar(), w.authUrl(), 'alice', 'newpw')).status).toBe(302);
    // Without kc_action the redirect has neither parameter.
    const plain = redirectParams(await jar.fetch(w.authUrl()));
    expect(plain.get('kc_action_status')).toBeNull();
    expect(plain.get('kc_action')).toBeNull();
  });

  test('an authentication older than max_auth_age is asked again first (default 300 s; the action config decides)', async () => {
    const jar = await ssoBrowser('newpw');
    const real = clock.now;
    clock.now = () => real() + 301_000;
    try {
      let res = await jar.fetch(w.authUrl({ kc_action: 'UPDATE_PASSWORD' }));
      let html = await res.text();
      expect(html).toContain('name="password"'); // the login form, not the action
      expect(html).toContain('value="alice"');
      res = await jar.post(formAction(html), { username: 'alice', password: 'newpw' });
      html = await res.text();
      expect(html).toContain('name="password-new"');
      // Cancelled: back to the application, whose tokens carry the new authentication time.
      res = await jar.post(formAction(html), { 'cancel-aia': 'true' });
      const tokens = await exchange(w, redirectParams(res).get('code') as string);
      const idToken = JSON.parse(Buffer.from(String(tokens.body.id_token).split('.')[1], 'base64url').toString());
      expect(Math.abs(idToken.auth_time - Math.floor(clock.now() / 1000))).toBeLessThan(5);
      // That sign-in is recent: the next action needs none.
      html = await (await jar.fetch(w.authUrl({ kc_action: 'UPDATE_PASSWORD' }))).text();
      expect(html).toContain('name="password-new"');
      // CONFIGURE_TOTP has its own max_auth_age; raised, the same SSO session suffices.
      const rep = (await w.api.get(`${R}/authentication/required-actions/CONFIGURE_TOTP`).expect(200)).body;
      await w.api.put(`${R}/authentication/required-actions/CONFIGURE_TOTP`, { ...rep, config: { max_auth_age: '1000' } }).expect(204);
      const jar2 = new Jar();
      jar2.cookies.set('KEYCLOAK_IDENTITY', jar.cookies.get('KEYCLOAK_IDENTITY') as string);
      res = await jar2.fetch(w.authUrl({ kc_action: 'CONFIGURE_TOTP' }));
      html = await res.text();
      expect(html).toContain('id="kc-totp-secret-key"');
      expect(html).toContain('name="cancel-aia"');
    } finally {
      clock.now = real;
    }
  });

  test("UPDATE_PASSWORD without a max_auth_age of its own follows the password policy's maxAuthAge", async () => {
    const rep = (await w.api.get(`${R}/authentication/required-actions/UPDATE_PASSWORD`).expect(200)).body;
    await w.api.put(`${R}/authentication/required-actions/UPDATE_PASSWORD`, { ...rep, config: {} }).expect(204);
    const realm = (await w.api.get(R).expect(200)).body;
    const real = clock.now;
    try {
      await w.api.put(R, { passwordPolicy: 'maxAuthAge(1000)' }).expect(204);
      const jar = await ssoBrowser('newpw');
      clock.now = () => real() + 600_000;
      // 600 s old: more than the default 300, less than the policy's 1000: the form, no sign-in.
      let html = await (await jar.fetch(w.authUrl({ kc_action: 'UPDATE_PASSWORD' }))).text();
      expect(html).toContain('name="password-new"');
      clock.now = real;
      await w.api.put(R, { passwordPolicy: 'maxAuthAge(100)' }).expect(204);
      clock.now = () => real() + 150_000;
      html = await (await jar.fetch(w.authUrl({ kc_action: 'UPDATE_PASSWORD' }))).text();
      expect(html).toContain('name="password"');
      expect(html).not.toContain('name="password-new"');
    } finally {
      clock.now = real;
      await w.api.put(R, { passwordPolicy: realm.passwordPolicy ?? '' }).expect(204);
      await w.api.put(`${R}/authentication/required-actions/UPDATE_PASSWORD`, rep).expect(204);
    }
  });

  test('an unknown, disabled or unimplemented action: straight back with kc_action_status=error', async () => {
    const jar = await ssoBrowser('newpw');
    for (const action of ['NO_SUCH_ACTION', 'delete_account', 'webauthn-register']) {
      const res = await jar.fetch(w.authUrl({ kc_action: action }));
      expect(res.status).toBe(302);
      const q = redirectParams(res);
      expect([q.get('kc_action'), q.get('kc_action_status')]).toEqual([action, 'error']);
      expect(q.get('code')).toBeTruthy();
    }
    // prompt=none cannot show the page.
    const none = redirectParams(await jar.fetch(w.authUrl({ kc_action: 'UPDATE_PROFILE', prompt: 'none' })));
    expect(none.get('error')).toBe('interaction_required');
  });

  test('UPDATE_PROFILE and TERMS_AND_CONDITIONS from the application; a form login runs the action after it', async () => {
    const jar = new Jar();
    let res = await signIn(jar, w.authUrl({ kc_action: 'UPDATE_PROFILE' }), 'alice', 'newpw');
    let html = await res.text();
    expect(html).toContain('id="kc-update-profile-form"');
    expect(html).toContain('name="cancel-aia"');
    res = await jar.post(formAction(html), { email: 'alice@example.org', firstName: 'Alice', lastName: 'Liddell' });
    let q = redirectParams(res);
    expect([q.get('kc_action'), q.get('kc_action_status')]).toEqual(['UPDATE_PROFILE', 'success']);
    expect((await alice()).email).toBe('alice@example.org');
    // A cancelled profile form changes nothing.
    html = await (await jar.fetch(w.authUrl({ kc_action: 'UPDATE_PROFILE' }))).text();
    res = await jar.post(formAction(html), { email: 'x@example.org', firstName: 'X', lastName: 'Y', 'cancel-aia': 'true' });
    expect(redirectParams(res).get('kc_action_status')).toBe('cancelled');
    expect((await alice()).firstName).toBe('Alice');
    const rep = (await w.api.get(`${R}/authentication/required-actions/TERMS_AND_CONDITIONS`).expect(200)).body;
    await w.api.put(`${R}/authentication/required-actions/TERMS_AND_CONDITIONS`, { ...rep, enabled: true }).expect(204);
    html = await (await jar.fetch(w.authUrl({ kc_action: 'TERMS_AND_CONDITIONS' }))).text();
    res = await jar.post(formAction(html), { accept: 'accept' });
    q = redirectParams(res);
    expect([q.get('kc_action'), q.get('kc_action_status')]).toEqual(['TERMS_AND_CONDITIONS', 'success']);
  });
});

describe('delete_credential', () => {
  const otp = async (label: string | null) => {
    const row = await w.ts.db.models.Credential.create({
      id: `00000000-0000-4000-8000-${String(Math.floor(Math.random() * 1e12)).padStart(12, '0')}`,
      userId: w.userId,
      type: 'otp',
      userLabel: label,
      priority: 20,
      createdDate: Date.now(),
      secretData: JSON.stringify({ value: 'secret' }),
      credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
    });
    return row.id;
  };
  const credentialIds = async () =>
    ((await w.api.get(`${R}/users/${w.userId}/credentials`).expect(200)).body as Array<{ id: string; type: string }>).map((c) => c.id);

  test('confirm deletes the credential and records REMOVE_CREDENTIAL and REMOVE_TOTP; cancel keeps it', async () => {
    // Signed in before the OTP exists (the browser flow would ask for it otherwise).
    const jar = await ssoBrowser('newpw');
    const id = await otp('My phone');
    let html = await (await jar.fetch(w.authUrl({ kc_action: `delete_credential:${id}` }))).text();
    expect(html).toContain('Delete My phone');
    expect(html).toContain('Do you want to delete My phone?');
    let res = await jar.post(formAction(html), { 'cancel-aia': 'true' });
    let q = redirectParams(res);
    expect([q.get('kc_action'), q.get('kc_action_status')]).toEqual(['delete_credential', 'cancelled']);
    expect(await credentialIds()).toContain(id);

    html = await (await jar.fetch(w.authUrl({ kc_action: `delete_credential:${id}` }))).text();
    res = await jar.post(formAction(html), { accept: 'accept' });
    q = redirectParams(res);
    expect([q.get('kc_action'), q.get('kc_action_status')]).toEqual(['delete_credential', 'success']);
    expect(q.get('code')).toBeTruthy();
    expect(await credentialIds()).not.toContain(id);
    const [removed] = await events('REMOVE_CREDENTIAL');
    expect(removed.details).toMatchObject({ credential_type: 'otp', credential_id: id, credential_user_label: 'My phone' });
    expect((await events('REMOVE_TOTP')).length).toBe(1);
  });

  test('an unknown id, no id, the password or another user’s credential: kc_action_status=error, nothing removed', async () => {
    const jar = await ssoBrowser('newpw');
    const before = await credentialIds();
    const password = ((await w.api.get(`${R}/users/${w.userId}/credentials`).expect(200)).body as Array<{ id: string; type: string }>).find(
      (c) => c.type === 'password',
    )?.id as string;
    const other = (await w.api.get(`${R}/users?username=nameless&exact=true`).expect(200)).body[0].id;
    const foreign = await w.ts.db.models.Credential.findOne({ where: { userId: other } });
    for (const value of [
      'delete_credential:nope',
      'delete_credential',
      `delete_credential:${password}`,
      `delete_credential:${foreign?.id}`,
    ]) {
      const res = await jar.fetch(w.authUrl({ kc_action: value }));
      expect(res.status).toBe(302);
      expect(redirectParams(res).get('kc_action_status')).toBe('error');
    }
    expect(await credentialIds()).toEqual(before);
    const errors = (await events('REMOVE_CREDENTIAL_ERROR')).map((e) => e.error);
    expect(errors).toContain('credential_not_found');
    expect(errors).toContain('missing_credential_id');
  });

  test('an unlabelled OTP is named by its type; a stale authentication signs in again first', async () => {
    const jar = await ssoBrowser('newpw');
    const id = await otp(null);
    const real = clock.now;
    clock.now = () => real() + 301_000;
    try {
      let html = await (await jar.fetch(w.authUrl({ kc_action: `delete_credential:${id}` }))).text();
      expect(html).toContain('name="password"');
      html = await (await jar.post(formAction(html), { username: 'alice', password: 'newpw' })).text();
      // The whole browser flow runs again: the OTP the user now has is asked for too.
      expect(html).toContain('name="otp"');
      const code = new TOTP({
        secret: new Secret({ buffer: new Uint8Array(Buffer.from('secret')).buffer }),
        digits: 6,
        period: 30,
      }).generate({
        timestamp: Date.now(), // the OTP check reads the real time
      });
      html = await (await jar.post(formAction(html), { otp: code })).text();
      expect(html).toContain('Do you want to delete Authenticator Application?');
    } finally {
      clock.now = real;
    }
  });
});
