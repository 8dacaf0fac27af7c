import type { ReceivedMail, TestSmtp } from '../helpers/smtp';
import { formAction, Jar, type LoginWorld, organizationWorld, redirectParams } from './browser-client';

/**
 * An organization invitation to an address without a user (Keycloak 26's
 * OrganizationMemberResource.inviteUser link to the registrations endpoint): the link opens the
 * registration form with the invited address prefilled and read-only, registration is allowed by the
 * invitation even when the realm's `registrationAllowed` is off (Organizations.isRegistrationAllowed),
 * and the registered user is a member of the organization (RegistrationUserCreation's
 * addOrganizationMember: member, e-mail verified, the login goes to the organization's redirect URL).
 */
let w: LoginWorld;
let smtp: TestSmtp;
const REALM = 'login-reginv';
const R = `/admin/realms/${REALM}`;
const WELCOME = 'https://acme.example.org/welcome';
let orgId: string;

beforeAll(async () => {
  ({ w, smtp, orgId } = await organizationWorld(REALM, WELCOME));
});
afterAll(async () => {
  await w?.ts.close();
  await smtp?.close();
});

const htmlText = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
const linkOf = (mail: ReceivedMail) => {
  const m = /(http:\/\/\S+\/protocol\/openid-connect\/registrations\?\S+)/.exec(mail.text);
  if (!m) throw new Error(`no registration link in ${mail.text}`);
  return m[1];
};
const inputOf = (html: string, name: string) => new RegExp(`<input id="${name}"[^>]*>`).exec(html)?.[0] ?? '';
const fieldError = (html: string, name: string) => {
  const m = new RegExp(`id="input-error-${name}"[^>]*>([^<]*)<`).exec(html);
  return m ? htmlText(m[1]) : undefined;
};
const invite = async (email: string) => {
  smtp.messages.length = 0;
  await w.api
    .post(`${R}/organizations/${orgId}/members/invite-user`)
    .type('form')
    .send({ email, firstName: 'Ina', lastName: 'Vited' })
    .expect(204);
  const [mail] = await smtp.waitFor(1);
  return linkOf(mail);
};
const form = (extra: Record<string, string> = {}) => ({
  username: 'invited',
  email: 'invitee@example.org',
  firstName: 'Ina',
  lastName: 'Vited',
  password: 'Secret123',
  'password-confirm': 'Secret123',
  ...extra,
});

test('an invitation to a new address: the registration form with the address read-only, then a member, redirected to the organization', async () => {
  // The realm does not allow registration: the invitation does.
  const link = await invite('invitee@example.org');
  const jar = new Jar();
  const page = await jar.fetch(link);
  let html = await page.text();
  expect(page.status).toBe(200);
  expect(html).toContain('id="kc-register-form"');
  expect(inputOf(html, 'email')).toContain('value="invitee@example.org"');
  expect(inputOf(html, 'email')).toContain('readonly');
  // Another address than the invited one is refused.
  let res = await jar.post(formAction(html), form({ email: 'someone.else@example.org' }));
  html = await res.text();
  expect(fieldError(html, 'email')).toBe('Email does not match the invitation');
  res = await jar.post(formAction(html), form());
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(WELCOME);
  expect(redirectParams(res).get('code')).toBeTruthy();
  const [user] = (await w.api.get(`${R}/users?username=invited&exact=true`).expect(200)).body;
  expect(user.email).toBe('invitee@example.org');
  expect(user.emailVerified).toBe(true);
  const members = (await w.api.get(`${R}/organizations/${orgId}/members`).expect(200)).body as Array<{
    id: string;
    membershipType: string;
  }>;
  expect(members.map((m) => [m.id, m.membershipType])).toEqual([[user.id, 'UNMANAGED']]);
  expect((await w.api.get(`${R}/organizations/${orgId}/invitations`).expect(200)).body).toEqual([]);
  const [register] = ((await w.api.get(`${R}/events?type=REGISTER`).expect(200)).body as Array<Record<string, unknown>>).filter(
    (e) => e.userId === user.id,
  );
  expect((register.details as Record<string, string>).org_id).toBe(orgId);
  // The accepted invitation's link is stale now.
  const again = await new Jar().fetch(link);
  expect(again.status).toBe(400);
  expect(await again.text()).toContain('This invitation is no longer valid.');
});

test("a deleted invitation's or a forged token's link does not open the form; the realm still refuses plain registrations", async () => {
  const link = await invite('deleted@example.org');
  const [inv] = (await w.api.get(`${R}/organizations/${orgId}/invitations`).expect(200)).body;
  await w.api.delete(`${R}/organizations/${orgId}/invitations/${inv.id}`).expect(204);
  const res = await new Jar().fetch(link);
  expect(res.status).toBe(400);
  expect(await res.text()).toContain('This invitation is no longer valid.');
  const forged = new URL(link);
  forged.searchParams.set('token', `${forged.searchParams.get('token')?.slice(0, -4)}AAAA`);
  expect((await new Jar().fetch(forged.toString())).status).toBe(400);
  const plain = await new Jar().fetch(w.authUrl().replace('/auth?', '/registrations?'));
  expect(plain.status).toBe(400);
  expect(await plain.text()).toContain('Registration not allowed');
});
