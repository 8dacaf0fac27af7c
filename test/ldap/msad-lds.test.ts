import {
  AD_LDS_ACCOUNT_CLASS,
  describeWithSlapd,
  ldapComponent,
  PEOPLE_DN,
  personCanBind,
  startSlapd,
  type TestSlapd,
} from '../helpers/slapd';
import { type AdBindProxy, startAdBindProxy } from '../helpers/ad-bind-proxy';
import { createdId } from '../helpers/fixtures';
import { formAction, Jar, type LoginWorld, loginWorld, pageError, redirectParams, signIn, passwordGrant } from '../login/browser-client';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * An AD LDS provider (`vendor` other, WRITABLE) with the `msad-lds-user-account-control-mapper`
 * (Keycloak's MSADLDSUserAccountControlStorageMapper) against slapd with AD LDS's account attributes
 * (`pwdLastSet`, `msDS-UserAccountDisabled`, `msDS-UserPasswordExpired`, `msDS-UserPasswordNotRequired`;
 * test/helpers/slapd.ts) behind the AD bind proxy (test/helpers/ad-bind-proxy.ts), which also refuses a
 * password write as AD LDS does.
 */
const R = 'msadlds';
let w: LoginWorld;
let slapd: TestSlapd;
let proxy: AdBindProxy;
let ldapId: string;

jest.setTimeout(120_000);

const dnOf = (uid: string) => `uid=${uid},${PEOPLE_DN}`;
const LONG_AGO = 133_000_000_000_000_000;

interface LdsAccount {
  pwdLastSet?: number;
  disabled?: 'TRUE' | 'FALSE';
  expired?: 'TRUE' | 'FALSE';
  notRequired?: 'TRUE' | 'FALSE';
}

async function addLdsUser(uid: string, a: LdsAccount) {
  const c = await slapd.admin();
  const opt = (k: string, v: string | number | undefined) => (v === undefined ? {} : { [k]: String(v) });
  try {
    await c.add(dnOf(uid), {
      objectClass: ['inetOrgPerson', AD_LDS_ACCOUNT_CLASS],
      uid,
      cn: `${uid} Person`,
      sn: 'Person',
      mail: `${uid}@example.org`,
      userPassword: `${uid}-pw`,
      ...opt('pwdLastSet', a.pwdLastSet),
      ...opt('msDS-UserAccountDisabled', a.disabled),
      ...opt('msDS-UserPasswordExpired', a.expired),
      ...opt('msDS-UserPasswordNotRequired', a.notRequired),
    });
  } finally {
    await c.unbind();
  }
}

async function account(uid: string) {
  const e = await slapd.entry(dnOf(uid), ['pwdLastSet', 'msDS-UserAccountDisabled']);
  return {
    pwdLastSet: e?.pwdLastSet === undefined ? undefined : Number(e.pwdLastSet),
    disabled: e?.['msDS-UserAccountDisabled'] as string | undefined,
  };
}

const grant = (username: string, password: string) => passwordGrant(w, username, password);

async function user(username: string) {
  const [u] = (await w.api.get(`/admin/realms/${R}/users?username=${username}&exact=true`).expect(200)).body;
  return u;
}

describeWithSlapd('AD LDS account controls (MSAD LDS mapper)', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    proxy = await startAdBindProxy(slapd.port);
    w = await loginWorld(R);
    const realmId = (await w.api.get(`/admin/realms/${R}`).expect(200)).body.id;
    ldapId = createdId(
      await w.api.post(
        `/admin/realms/${R}/components`,
        ldapComponent({ url: proxy.url }, realmId, { vendor: 'other', editMode: 'WRITABLE', usersDn: PEOPLE_DN }),
      ),
      'ldap provider',
    );
    await w.api
      .post(`/admin/realms/${R}/components`, {
        name: 'MSAD LDS account controls',
        providerId: 'msad-lds-user-account-control-mapper',
        providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
        parentId: ldapId,
        config: {},
      })
      .expect(201);
    await addLdsUser('ldsnormal', { pwdLastSet: LONG_AGO, disabled: 'FALSE' });
    await addLdsUser('ldsdisabled', { pwdLastSet: LONG_AGO, disabled: 'TRUE' });
    await addLdsUser('ldsnew', { pwdLastSet: 0, disabled: 'TRUE', notRequired: 'TRUE' });
    await addLdsUser('ldsexpired', { pwdLastSet: LONG_AGO, disabled: 'FALSE', expired: 'TRUE' });
    await addLdsUser('ldsstrict', { pwdLastSet: 0, disabled: 'FALSE' });
    await addLdsUser('lds773', { pwdLastSet: LONG_AGO, disabled: 'FALSE' });
    await addLdsUser('lds533', { pwdLastSet: LONG_AGO, disabled: 'FALSE' });
    proxy.refuse(dnOf('lds773'), 'lds773-pw', '773');
    proxy.refuse(dnOf('lds533'), 'lds533-pw', '533');
  });
  afterAll(async () => {
    await closeLdapPools();
    await w?.ts.close();
    await proxy?.close();
    await slapd?.close();
  });

  test('msDS-UserAccountDisabled TRUE disables the user once the account has a password (pwdLastSet > 0)', async () => {
    expect((await grant('ldsdisabled', 'ldsdisabled-pw')).status).toBe(400);
    expect((await user('ldsdisabled')).enabled).toBe(false);
    expect((await grant('ldsnormal', 'ldsnormal-pw')).status).toBe(200);
    expect((await user('ldsnormal')).enabled).toBe(true);
    // pwdLastSet 0: the entry's flag is not read (the local one counts); the password must change.
    await w.api.get(`/admin/realms/${R}/users?search=ldsnew`).expect(200);
    const fresh = await user('ldsnew');
    expect(fresh.enabled).toBe(true);
    expect(fresh.requiredActions).toEqual(['UPDATE_PASSWORD']);
  });

  test("an admin's enable / disable goes to msDS-UserAccountDisabled, UPDATE_PASSWORD to pwdLastSet", async () => {
    const u = await user('ldsnormal');
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { enabled: false }).expect(204);
    expect((await account('ldsnormal')).disabled).toBe('TRUE');
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { enabled: true }).expect(204);
    expect((await account('ldsnormal')).disabled).toBe('FALSE');
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { requiredActions: ['UPDATE_PASSWORD'] }).expect(204);
    expect((await account('ldsnormal')).pwdLastSet).toBe(0);
    // With pwdLastSet 0 the flag is not written.
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { enabled: false }).expect(204);
    expect((await account('ldsnormal')).disabled).toBe('FALSE');
    await w.api.put(`/admin/realms/${R}/users/${u.id}`, { enabled: true, requiredActions: [] }).expect(204);
    expect((await account('ldsnormal')).pwdLastSet).toBe(-1);
    // An account that needs no password keeps its pwdLastSet.
    const fresh = await user('ldsnew');
    await w.api.put(`/admin/realms/${R}/users/${fresh.id}`, { requiredActions: [] }).expect(204);
    expect((await account('ldsnew')).pwdLastSet).toBe(0);
  });

  test('msDS-UserPasswordExpired is UPDATE_PASSWORD at login; the new password is userPassword, pwdLastSet -1', async () => {
    const blocked = await grant('ldsexpired', 'ldsexpired-pw');
    expect(blocked.status).toBe(400);
    expect(((await blocked.json()) as { error_description: string }).error_description).toBe('Account is not fully set up');
    const jar = new Jar();
    const page = await signIn(jar, w.authUrl(), 'ldsexpired', 'ldsexpired-pw');
    const html = await page.text();
    expect(html).toContain('name="password-new"');
    const done = await jar.post(formAction(html), { 'password-new': 'Changed-pw-3', 'password-confirm': 'Changed-pw-3' });
    expect(done.status).toBe(302);
    expect(redirectParams(done).get('code')).toEqual(expect.any(String));
    expect(await personCanBind(slapd, 'ldsexpired', 'Changed-pw-3')).toBe(true);
    expect(await account('ldsexpired')).toEqual({ pwdLastSet: -1, disabled: 'FALSE' });
  });

  test("AD LDS refusing the new password (problem 1005, Att 23 userPassword) is Keycloak's regex-pattern message", async () => {
    const jar = new Jar();
    const page = await signIn(jar, w.authUrl(), 'ldsstrict', 'ldsstrict-pw');
    const html = await page.text();
    expect(html).toContain('name="password-new"');
    proxy.refuseModify(
      dnOf('ldsstrict'),
      'userPassword',
      19,
      '0000052D: AtrErr: DSID-03190F80, #1:\n\t0: 0000052D: DSID-03190F80, problem 1005 (CONSTRAINT_ATT_TYPE), data 0, Att 23 (userPassword)\n',
    );
    const refused = await jar.post(formAction(html), { 'password-new': 'weak', 'password-confirm': 'weak' });
    expect(refused.status).not.toBe(302);
    expect(pageError(await refused.text())).toBe('Invalid password: fails to match regex pattern(s).');
    expect(await personCanBind(slapd, 'ldsstrict', 'ldsstrict-pw')).toBe(true);
    expect((await account('ldsstrict')).pwdLastSet).toBe(0);
  });

  test('binds refused with data 773 let the user change the password; 533 disables the user', async () => {
    await w.api.get(`/admin/realms/${R}/users?search=lds773`).expect(200);
    await w.api.get(`/admin/realms/${R}/users?search=lds533`).expect(200);
    const page = await signIn(new Jar(), w.authUrl(), 'lds773', 'lds773-pw');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password-new"');
    const off = await signIn(new Jar(), w.authUrl(), 'lds533', 'lds533-pw');
    expect(off.status).not.toBe(302);
    expect((await user('lds533')).enabled).toBe(false);
  });
});
