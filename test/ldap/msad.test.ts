import { AD_ACCOUNT_CLASS, describeWithSlapd, ldapComponent, PEOPLE_DN, startSlapd, type TestSlapd } from '../helpers/slapd';
import { type AdBindProxy, startAdBindProxy } from '../helpers/ad-bind-proxy';
import { createdId } from '../helpers/fixtures';
import { formAction, Jar, type LoginWorld, loginWorld, pageError, redirectParams, signIn, passwordGrant } from '../login/browser-client';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';
import { POLICY_HINTS_OID } from '../../src/services/user-storage/msad';

/**
 * An Active Directory provider (`vendor` ad, WRITABLE) with its default MSAD account-control mapper
 * (Keycloak's MSADUserAccountControlStorageMapper) against slapd with AD's account attributes
 * (`userAccountControl`, `pwdLastSet`, `unicodePwd`; test/helpers/slapd.ts) and a proxy that answers
 * binds with AD's `AcceptSecurityContext error, data XXX` codes (test/helpers/ad-bind-proxy.ts):
 * ACCOUNTDISABLE is `enabled`, pwdLastSet 0 is UPDATE_PASSWORD, an admin's changes of either go to the
 * entry, a new password is written as `unicodePwd` and clears pwdLastSet, and binds refused with 773 /
 * 533 let the user change the password / disable it.
 */
const R = 'msad';
let w: LoginWorld;
let slapd: TestSlapd;
let proxy: AdBindProxy;
let ldapId: string;

jest.setTimeout(120_000);

const dnOf = (uid: string) => `uid=${uid},${PEOPLE_DN}`;

async function addAdUser(uid: string, account: { userAccountControl: number; pwdLastSet?: number }) {
  const c = await slapd.admin();
  try {
    await c.add(dnOf(uid), {
      objectClass: ['inetOrgPerson', AD_ACCOUNT_CLASS],
      uid,
      cn: `${uid} Person`,
      sn: 'Person',
      mail: `${uid}@example.org`,
      userPassword: `${uid}-pw`,
      userAccountControl: String(account.userAccountControl),
      ...(account.pwdLastSet !== undefined ? { pwdLastSet: String(account.pwdLastSet) } : {}),
    });
  } finally {
    await c.unbind();
  }
}

async function account(uid: string) {
  const e = await slapd.entry(dnOf(uid), ['userAccountControl', 'pwdLastSet', 'unicodePwd']);
  return {
    userAccountControl: Number(e?.userAccountControl),
    pwdLastSet: e?.pwdLastSet === undefined ? undefined : Number(e.pwdLastSet),
    unicodePwd: e?.unicodePwd as Buffer | string | undefined,
  };
}

const grant = (username: string, password: string) => passwordGrant(w, username, password);

async function user(username: string) {
  const [u] = (await w.api.get(`/admin/realms/${R}/users?username=${username}&exact=true`).expect(200)).body;
  return u;
}

const unicodePwdOf = (password: string) => Buffer.from(`"${password}"`, 'utf16le');

describeWithSlapd('Active Directory account controls (MSAD mapper)', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    proxy = await startAdBindProxy(slapd.port);
    w = await loginWorld(R);
    const realmId = (await w.api.get(`/admin/realms/${R}`).expect(200)).body.id;
    ldapId = createdId(
      await w.api.post(
        `/admin/realms/${R}/components`,
        ldapComponent({ url: proxy.url }, realmId, { vendor: 'ad', editMode: 'WRITABLE', usersDn: PEOPLE_DN }),
      ),
      'ldap provider',
    );
    await addAdUser('adnormal', { userAccountControl: 512, pwdLastSet: 133_000_000_000_000_000 });
    await addAdUser('addisabled', { userAccountControl: 514, pwdLastSet: 133_000_000_000_000_000 });
    await addAdUser('admust', { userAccountControl: 512, pwdLastSet: 0 });
    await addAdUser('adexpired', { userAccountControl: 512, pwdLastSet: 133_000_000_000_000_000 });
    await addAdUser('adoff', { userAccountControl: 512, pwdLastSet: 133_000_000_000_000_000 });
    // AD refuses these binds although the password is right: 773 must change it, 533 is disabled.
    proxy.refuse(dnOf('adexpired'), 'adexpired-pw', '773');
    proxy.refuse(dnOf('adoff'), 'adoff-pw', '533');
  });
  afterAll(async () => {
    await closeLdapPools();
    await w?.ts.close();
    await proxy?.close();
    await slapd?.close();
  });

  test('the default mappers of an AD provider include the MSAD account-control mapper', async () => {
    const mappers = (await w.api.get(`/admin/realms/${R}/components?parent=${ldapId}`).expect(200)).body as Array<{ providerId: string }>;
    expect(mappers.map((m) => m.providerId)).toContain('msad-user-account-control-mapper');
  });

  test('ACCOUNTDISABLE is `enabled`: a disabled AD account is imported disabled and cannot log in', async () => {
    const res = await grant('addisabled', 'addisabled-pw');
    expect(res.status).toBe(400);
    expect((await user('addisabled')).enabled).toBe(false);
    expect((await grant('adnormal', 'adnormal-pw')).status).toBe(200);
    expect((await user('adnormal')).enabled).toBe(true);
  });

  test("an admin's enable / disable and UPDATE_PASSWORD go to userAccountControl and pwdLastSet", async () => {
    const u = await user('adnormal');
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { enabled: false }).expect(204);
    expect((await account('adnormal')).userAccountControl).toBe(514);
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { enabled: true }).expect(204);
    expect((await account('adnormal')).userAccountControl).toBe(512);
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { requiredActions: ['UPDATE_PASSWORD'] }).expect(204);
    expect((await account('adnormal')).pwdLastSet).toBe(0);
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { requiredActions: [] }).expect(204);
    expect((await account('adnormal')).pwdLastSet).toBe(-1);
    // An admin's password reset is written as unicodePwd; a temporary one asks for a change (pwdLastSet 0).
    await w.api
      .put(`/admin/realms/${R}/users/${u.id}/reset-password`, { type: 'password', value: 'Reset-pw-1', temporary: true })
      .expect(204);
    const after = await account('adnormal');
    expect(Buffer.from(after.unicodePwd as Buffer)).toEqual(unicodePwdOf('Reset-pw-1'));
    expect(after.pwdLastSet).toBe(0);
    expect((await w.api.get(`/admin/realms/${R}/users/${u.id}`).expect(200)).body.requiredActions).toEqual(['UPDATE_PASSWORD']);
  });

  test('pwdLastSet 0 is UPDATE_PASSWORD at login; the new password goes to unicodePwd and pwdLastSet becomes -1', async () => {
    // The password grant cannot run a required action.
    const blocked = await grant('admust', 'admust-pw');
    expect(blocked.status).toBe(400);
    expect(((await blocked.json()) as { error_description: string }).error_description).toBe('Account is not fully set up');
    expect((await user('admust')).requiredActions).toEqual(['UPDATE_PASSWORD']);
    const jar = new Jar();
    const page = await signIn(jar, w.authUrl(), 'admust', 'admust-pw');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('name="password-new"');
    const done = await jar.post(formAction(html), { 'password-new': 'Changed-pw-2', 'password-confirm': 'Changed-pw-2' });
    expect(done.status).toBe(302);
    expect(redirectParams(done).get('code')).toEqual(expect.any(String));
    const a = await account('admust');
    expect(Buffer.from(a.unicodePwd as Buffer)).toEqual(unicodePwdOf('Changed-pw-2'));
    expect(a.pwdLastSet).toBe(-1);
    expect(a.userAccountControl).toBe(512);
    expect((await user('admust')).requiredActions).toEqual([]);
  });

  test('ldap.password.policy.hints.enabled: a user changing its own password sends the policy hints control; an admin reset does not', async () => {
    const mappers = (await w.api.get(`/admin/realms/${R}/components?parent=${ldapId}`).expect(200)).body as Array<{
      id: string;
      providerId: string;
      config: Record<string, string[]>;
    }>;
    const msad = mappers.find((m) => m.providerId === 'msad-user-account-control-mapper');
    if (!msad) throw new Error('no MSAD mapper');
    await w.api
      .put(`/admin/realms/${R}/components/${msad.id}`, {
        ...msad,
        config: { ...msad.config, 'ldap.password.policy.hints.enabled': ['true'] },
      })
      .expect(204);
    await addAdUser('adhint', { userAccountControl: 512, pwdLastSet: 0 });
    const sent = proxy.acceptWithControl(dnOf('adhint'), POLICY_HINTS_OID);
    const jar = new Jar();
    const page = await signIn(jar, w.authUrl(), 'adhint', 'adhint-pw');
    const done = await jar.post(formAction(await page.text()), { 'password-new': 'Hinted-pw-3', 'password-confirm': 'Hinted-pw-3' });
    expect(done.status).toBe(302);
    expect(sent).toHaveLength(1);
    // The control: the OID, critical (BOOLEAN TRUE), its value SEQUENCE { INTEGER 1 } in an OCTET STRING.
    const oid = Buffer.from(POLICY_HINTS_OID, 'latin1');
    const at = sent[0].indexOf(oid) + oid.length;
    expect([...sent[0].subarray(at, at + 10)]).toEqual([0x01, 0x01, 0xff, 0x04, 0x05, 0x30, 0x03, 0x02, 0x01, 0x01]);
    expect((await account('adhint')).pwdLastSet).toBe(-1);
    const u = await user('adhint');
    await w.api
      .put(`/admin/realms/${R}/users/${u.id}/reset-password`, { type: 'password', value: 'Admin-set-4', temporary: false })
      .expect(204);
    expect(sent).toHaveLength(1);
    expect(Buffer.from((await account('adhint')).unicodePwd as Buffer)).toEqual(unicodePwdOf('Admin-set-4'));
  });

  test("a new password AD refuses for its policy (53, 0000052D) is Keycloak's invalidPasswordGenericMessage", async () => {
    const u = await user('adnormal');
    proxy.refuseModify(dnOf('adnormal'), 'unicodePwd', 53, '0000052D: SvcErr: DSID-031A12D2, problem 5003 (WILL_NOT_PERFORM), data 0');
    const refused = await w.api
      .put(`/admin/realms/${R}/users/${u.id}/reset-password`, { type: 'password', value: 'Too-simple-1', temporary: false })
      .expect(400);
    expect(refused.body).toEqual({ errorMessage: "Invalid password: new password doesn't match password policies." });
    expect(Buffer.from((await account('adnormal')).unicodePwd as Buffer)).not.toEqual(unicodePwdOf('Too-simple-1'));
  });

  test('a bind refused with data 773 lets the user in to change the password; 533 disables the user', async () => {
    // Imported first through a search (no bind): the admin's user search falls through to LDAP.
    await w.api.get(`/admin/realms/${R}/users?search=adexpired`).expect(200);
    await w.api.get(`/admin/realms/${R}/users?search=adoff`).expect(200);
    const jar = new Jar();
    const page = await signIn(jar, w.authUrl(), 'adexpired', 'adexpired-pw');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password-new"');
    // A wrong password is still wrong.
    const wrong = await signIn(new Jar(), w.authUrl(), 'adexpired', 'nope');
    expect(wrong.status).toBe(401);
    expect(pageError(await wrong.text())).toBe('Invalid username or password.');
    // 533: AD says the account is disabled; so is the user now.
    const off = await signIn(new Jar(), w.authUrl(), 'adoff', 'adoff-pw');
    expect(off.status).not.toBe(302);
    expect((await user('adoff')).enabled).toBe(false);
  });
});
