import { Jar, type LoginWorld, loginWorld, formAction, pageError, redirectParams, signIn, passwordGrant } from '../login/browser-client';
import { createdId } from '../helpers/fixtures';
import { describeWithSlapd, ldapComponent, personCanBind, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * A new password of an LDAP user goes where Keycloak's credential manager sends it: the user's
 * provider first (LDAPStorageProvider#updateCredential). WRITABLE sets it in the directory and stores
 * nothing here, checking the realm's password policy only with `validatePasswordPolicy`; READ_ONLY
 * refuses ("Federated storage is not writable": UpdatePassword shows the message and records
 * UPDATE_PASSWORD_ERROR password_rejected with the reason). Both for the UPDATE_PASSWORD required
 * action of the browser login and for the admin reset-password.
 */
const R = 'ldappwd';
let w: LoginWorld;
let slapd: TestSlapd;
let ldapId: string;

jest.setTimeout(120_000);

const grant = (username: string, password: string) => passwordGrant(w, username, password);

async function configure(config: Record<string, string>) {
  const c = (await w.api.get(`/admin/realms/${R}/components/${ldapId}`).expect(200)).body;
  for (const [k, v] of Object.entries(config)) c.config[k] = [v];
  await w.api.put(`/admin/realms/${R}/components/${ldapId}`, c).expect(204);
}

/** Imports the directory user (a password grant) and gives it the UPDATE_PASSWORD required action. */
async function importedWithUpdatePassword(username: string, password: string): Promise<string> {
  expect((await grant(username, password)).status).toBe(200);
  const [u] = (await w.api.get(`/admin/realms/${R}/users?username=${username}&exact=true`).expect(200)).body;
  expect(u.federationLink).toBe(ldapId);
  await w.api.put(`/admin/realms/${R}/users/${u.id}`, { requiredActions: ['UPDATE_PASSWORD'] }).expect(204);
  return u.id;
}

/** Signs in and posts `next` to the update-password page; the answer to that post. */
async function updatePassword(username: string, password: string, next: string) {
  const jar = new Jar();
  const page = await signIn(jar, w.authUrl(), username, password);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('name="password-new"');
  return jar.post(formAction(html), { 'password-new': next, 'password-confirm': next });
}

const localPasswords = async (id: string) =>
  ((await w.api.get(`/admin/realms/${R}/users/${id}/credentials`).expect(200)).body as Array<{ type: string }>).filter(
    (c) => c.type === 'password',
  );

describeWithSlapd('LDAP users changing their password', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    w = await loginWorld(R);
    await w.api.put(`/admin/realms/${R}`, { passwordPolicy: 'length(12)' }).expect(204);
    const realmId = (await w.api.get(`/admin/realms/${R}`).expect(200)).body.id;
    ldapId = createdId(
      await w.api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId, { editMode: 'WRITABLE' })),
      'ldap provider',
    );
  });
  afterAll(async () => {
    await closeLdapPools();
    await w?.ts.close();
    await slapd?.close();
  });

  test('WRITABLE: the required action sets the password in the directory, stores none here, and skips the realm policy', async () => {
    const id = await importedWithUpdatePassword('jbrown', 'jbrown-pw');
    // length(12) is the realm's policy; without validatePasswordPolicy the directory's own policy decides.
    const res = await updatePassword('jbrown', 'jbrown-pw', 'jb-new-1');
    expect(res.status).toBe(302);
    expect(redirectParams(res).get('code')).toEqual(expect.any(String));
    expect(await personCanBind(slapd, 'jbrown', 'jb-new-1')).toBe(true);
    expect(await personCanBind(slapd, 'jbrown', 'jbrown-pw')).toBe(false);
    expect(await localPasswords(id)).toEqual([]);
    expect((await grant('jbrown', 'jb-new-1')).status).toBe(200);
    expect((await grant('jbrown', 'jbrown-pw')).status).toBe(400);
  });

  test('WRITABLE with validatePasswordPolicy: the realm policy applies before the directory is written', async () => {
    await configure({ validatePasswordPolicy: 'true' });
    try {
      await importedWithUpdatePassword('rsmith', 'rsmith-pw');
      const short = await updatePassword('rsmith', 'rsmith-pw', 'rs-new-1');
      expect(short.status).toBe(400);
      expect(pageError(await short.text())).toBe('Invalid password: minimum length 12.');
      expect(await personCanBind(slapd, 'rsmith', 'rsmith-pw')).toBe(true);
      // The admin reset is held to the same policy.
      const [u] = (await w.api.get(`/admin/realms/${R}/users?username=rsmith&exact=true`).expect(200)).body;
      const refused = await w.api
        .put(`/admin/realms/${R}/users/${u.id}/reset-password`, { type: 'password', value: 'rs-new-1', temporary: false })
        .expect(400);
      expect(refused.body.error).toBe('invalidPasswordMinLengthMessage');
      await w.api
        .put(`/admin/realms/${R}/users/${u.id}/reset-password`, { type: 'password', value: 'rsmith-long-new', temporary: false })
        .expect(204);
      expect(await personCanBind(slapd, 'rsmith', 'rsmith-long-new')).toBe(true);
    } finally {
      await configure({ validatePasswordPolicy: 'false' });
    }
  });

  test('READ_ONLY: the required action refuses with Keycloak message and event, and nothing changes anywhere', async () => {
    await configure({ editMode: 'READ_ONLY' });
    try {
      const id = await importedWithUpdatePassword('bwilson', 'bwilson-pw');
      const res = await updatePassword('bwilson', 'bwilson-pw', 'bwilson-new-pw-1');
      expect(res.status).toBe(400);
      expect(pageError(await res.text())).toBe('Federated storage is not writable');
      expect(await personCanBind(slapd, 'bwilson', 'bwilson-pw')).toBe(true);
      expect(await localPasswords(id)).toEqual([]);
      expect((await grant('bwilson', 'bwilson-new-pw-1')).status).toBe(400);
      const events = (await w.api.get(`/admin/realms/${R}/events?type=UPDATE_PASSWORD_ERROR`).expect(200)).body as Array<{
        error: string;
        userId: string;
        details: Record<string, string>;
      }>;
      expect(events.find((e) => e.userId === id)).toMatchObject({
        error: 'password_rejected',
        details: expect.objectContaining({ reason: 'Federated storage is not writable' }),
      });
      // The admin reset answers as Keycloak's UserResource does for a read-only account.
      const refused = await w.api
        .put(`/admin/realms/${R}/users/${id}/reset-password`, { type: 'password', value: 'x', temporary: false })
        .expect(400);
      expect(refused.body).toEqual({ errorMessage: "Can't reset password as account is read only" });
    } finally {
      await configure({ editMode: 'WRITABLE' });
    }
  });

  test('UNSYNCED: the new password is stored here under the realm policy, and the directory keeps its own', async () => {
    await configure({ editMode: 'UNSYNCED' });
    try {
      const id = await importedWithUpdatePassword('jbrown', 'jb-new-1');
      const short = await updatePassword('jbrown', 'jb-new-1', 'jb-local-1');
      expect(pageError(await short.text())).toBe('Invalid password: minimum length 12.');
      const res = await updatePassword('jbrown', 'jb-new-1', 'jbrown-local-pw');
      expect(res.status).toBe(302);
      expect(await localPasswords(id)).toHaveLength(1);
      expect(await personCanBind(slapd, 'jbrown', 'jb-new-1')).toBe(true);
    } finally {
      await configure({ editMode: 'WRITABLE' });
    }
  });
});
