import { exchange, formAction, Jar, type LoginWorld, loginWorld, pageError, redirectParams } from '../login/browser-client';
import { createdId } from '../helpers/fixtures';
import { describeWithSlapd, ldapComponent, PEOPLE_DN, personCanBind, personEntry, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * Self-registration with an LDAP provider that synchronizes registrations (`syncRegistrations`,
 * WRITABLE), against a real slapd: Keycloak's RegistrationUserCreation adds the user through
 * UserStorageManager.addUser, which hands it to the provider, so the entry is created in the
 * directory with the form's password and the local copy is linked to it; a username already in the
 * directory is "Username already exists." on the form, and a directory that is down leaves nothing
 * written and shows the registration form again with the error.
 */
const R = 'ldapregister';
let w: LoginWorld;
let slapd: TestSlapd;
let ldapId: string;

const htmlText = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
const fieldError = (html: string, name: string) => htmlText(new RegExp(`id="input-error-${name}"[^>]*>([^<]*)<`).exec(html)?.[1] ?? '');
const find = async (username: string) =>
  (await w.api.get(`/admin/realms/${R}/users?username=${username}&exact=true&briefRepresentation=false`).expect(200)).body[0];
const ldapEntry = (uid: string) => personEntry(slapd, uid);
const canBind = (uid: string, password: string) => personCanBind(slapd, uid, password);
async function registerForm(jar: Jar): Promise<string> {
  const login = await jar.fetch(w.authUrl());
  const link = /id="kc-register-link" href="([^"]+)"/.exec(await login.text())?.[1] as string;
  return (await jar.fetch(`${w.base}${htmlText(link)}`)).text();
}
const fields = (username: string) => ({
  username,
  email: `${username}@example.org`,
  firstName: 'Reg',
  lastName: 'Istered',
  password: `${username}-Secret1`,
  'password-confirm': `${username}-Secret1`,
});

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

describeWithSlapd('LDAP self-registration', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    w = await loginWorld(R, { registrationAllowed: true });
    const realmId = (await w.api.get(`/admin/realms/${R}`).expect(200)).body.id;
    ldapId = createdId(
      await w.api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId, { editMode: 'WRITABLE', syncRegistrations: 'true' })),
      'ldap provider',
    );
  });
  afterAll(async () => {
    await closeLdapPools();
    await w?.ts.close();
    await slapd?.close();
  });

  test('a registered user is created in the directory with the password of the form and linked to it', async () => {
    const jar = new Jar();
    const post = await jar.post(formAction(await registerForm(jar)), fields('selfreg'));
    expect(post.status).toBe(302);
    expect((await exchange(w, redirectParams(post).get('code') as string)).status).toBe(200);
    expect(await ldapEntry('selfreg')).toMatchObject({ sn: 'Istered', cn: 'Reg', mail: 'selfreg@example.org' });
    expect(await canBind('selfreg', 'selfreg-Secret1')).toBe(true);
    const u = await find('selfreg');
    expect(u).toMatchObject({ username: 'selfreg', federationLink: ldapId });
    expect(u.attributes.LDAP_ENTRY_DN).toEqual([`uid=selfreg,${PEOPLE_DN}`]);
    // The password lives in the directory only.
    expect((await w.api.get(`/admin/realms/${R}/users/${u.id}/credentials`).expect(200)).body).toEqual([]);
  });

  test('a username already in the directory is shown on the form, and nothing is created', async () => {
    const jar = new Jar();
    // rsmith is in the directory, not (yet) imported.
    const post = await jar.post(formAction(await registerForm(jar)), { ...fields('rsmith'), email: 'rsmith-new@example.org' });
    expect(post.status).toBe(200);
    expect(fieldError(await post.text(), 'username')).toBe('Username already exists.');
    const events = (await w.api.get(`/admin/realms/${R}/events?type=REGISTER_ERROR&max=10`).expect(200)).body;
    expect(events[0]).toMatchObject({ error: 'username_in_use' });
  });

  test('with the directory down the registration form shows the error again and nothing is written', async () => {
    const jar = new Jar();
    const form = await registerForm(jar);
    await slapd.stop();
    let html: string;
    try {
      const post = await jar.post(formAction(form), fields('offline'));
      expect(post.status).toBe(200);
      html = await post.text();
    } finally {
      await slapd.start();
    }
    expect(pageError(html)).toBe('Could not create user');
    expect(html).toContain('value="offline"'); // the form keeps what was typed
    expect(await find('offline')).toBeUndefined();
    expect(await ldapEntry('offline')).toBeUndefined();
  });
});
