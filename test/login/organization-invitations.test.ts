import { decodeProtectedHeader } from 'jose';
import { clock } from '../../src/core/clock';
import type { ReceivedMail, TestSmtp } from '../helpers/smtp';
import { Jar, type LoginWorld, organizationWorld, pageError } from './browser-client';

/**
 * The link of an organization invitation mail followed by a scripted browser, as Keycloak 26's
 * InviteOrgActionTokenHandler (services/src/main/java/org/keycloak/authentication/actiontoken/
 * inviteorg/InviteOrgActionTokenHandler.java) answers it: the first visit asks to confirm, the
 * confirmation link makes the invited user a member and redirects to the organization's redirect
 * URL; the accepted invitation is gone from the list (Keycloak's invitation status is only PENDING or
 * EXPIRED); a deleted, resent or expired invitation's link no longer works.
 */
let w: LoginWorld;
let smtp: TestSmtp;
const REALM = 'login-orginv';
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
beforeEach(async () => {
  smtp.messages.length = 0;
  for (const m of (await w.api.get(`${R}/organizations/${orgId}/members`).expect(200)).body) {
    await w.api.delete(`${R}/organizations/${orgId}/members/${m.id}`).expect(204);
  }
  for (const i of (await w.api.get(`${R}/organizations/${orgId}/invitations`).expect(200)).body) {
    await w.api.delete(`${R}/organizations/${orgId}/invitations/${i.id}`).expect(204);
  }
});

const htmlText = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
const linkOf = (mail: ReceivedMail) => {
  const m = /(http:\/\/\S+\/login-actions\/action-token\?\S+)/.exec(mail.text);
  if (!m) throw new Error(`no link in ${mail.text}`);
  return m[1];
};
const proceedLink = (html: string) => {
  const m = /id="proceedWithAction" href="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no confirmation link in ${html.slice(0, 600)}`);
  return htmlText(m[1]);
};
const invitations = async () =>
  (await w.api.get(`${R}/organizations/${orgId}/invitations`).expect(200)).body as Array<Record<string, unknown>>;
const members = async () =>
  ((await w.api.get(`${R}/organizations/${orgId}/members`).expect(200)).body as Array<{ username: string }>).map((m) => m.username);

async function inviteAlice(): Promise<string> {
  await w.api.post(`${R}/organizations/${orgId}/members/invite-existing-user`).type('form').send({ id: w.userId }).expect(204);
  const [mail] = await smtp.waitFor(1);
  smtp.messages.length = 0;
  return linkOf(mail);
}

test('the link asks to confirm; the confirmation makes the user a member, redirects to the redirect URL and the invitation is gone', async () => {
  const link = await inviteAlice();
  expect(await invitations()).toEqual([expect.objectContaining({ email: 'alice@example.org', status: 'PENDING' })]);
  // An action token (InviteOrgActionToken): Keycloak's TokenCategory.INTERNAL, the realm's HS512 key.
  const kid = (await w.api.get(`${R}/keys`).expect(200)).body.active.HS512;
  expect(decodeProtectedHeader(new URL(link).searchParams.get('key') as string)).toEqual({ alg: 'HS512', typ: 'JWT', kid });
  const jar = new Jar();
  const first = await jar.fetch(link);
  expect(first.status).toBe(200);
  const html = await first.text();
  expect(html).toContain('You are about to join organization Acme');
  expect(await members()).toEqual([]);
  const confirmed = await jar.fetch(proceedLink(html));
  expect(confirmed.status).toBe(302);
  expect(confirmed.headers.get('location')).toBe(WELCOME);
  expect(await members()).toEqual(['alice']);
  const [member] = (await w.api.get(`${R}/organizations/${orgId}/members`).expect(200)).body;
  expect(member.membershipType).toBe('UNMANAGED');
  expect(await invitations()).toEqual([]);
  // The same link again: the user is a member already (Keycloak's info page, with the way to the organization).
  const again = await new Jar().fetch(link);
  const againHtml = await again.text();
  expect(againHtml).toContain('User alice is already a member of the organization Acme.');
  expect(againHtml).toContain(`href="${WELCOME}"`);
  const events = (await w.api.get(`${R}/events?type=INVITE_ORG`).expect(200)).body;
  expect(events[0]).toMatchObject({ type: 'INVITE_ORG', userId: w.userId, details: expect.objectContaining({ org_id: orgId }) });
});

test('the confirmation link works only in the browser that was asked, for the token it was made for', async () => {
  const link = await inviteAlice();
  const jar = new Jar();
  const confirm = proceedLink(await (await jar.fetch(link)).text());
  // Another browser following the confirmation link is asked again, nothing joins.
  const other = await new Jar().fetch(confirm);
  expect(other.status).toBe(200);
  expect(await other.text()).toContain('You are about to join organization Acme');
  expect(await members()).toEqual([]);
  expect((await jar.fetch(confirm)).status).toBe(302);
  expect(await members()).toEqual(['alice']);
});

test('a deleted or resent invitation: the old link is stale; the resent one works', async () => {
  const link = await inviteAlice();
  const [inv] = await invitations();
  await w.api.post(`${R}/organizations/${orgId}/invitations/${inv.id}/resend`).expect(204);
  const [resentMail] = await smtp.waitFor(1);
  const stale = await new Jar().fetch(link);
  expect(stale.status).toBe(400);
  expect(pageError(await stale.text())).toBe('This invitation is no longer valid. Ask the organization for a new one.');
  const [resent] = await invitations();
  expect(resent.id).not.toBe(inv.id);
  await w.api.delete(`${R}/organizations/${orgId}/invitations/${resent.id}`).expect(204);
  expect((await new Jar().fetch(linkOf(resentMail))).status).toBe(400);
  expect(await members()).toEqual([]);
});

test('an expired link ends on the expired page; the invitation lists as EXPIRED, and inviting again replaces it', async () => {
  // Invitations live for the realm's admin action-token lifespan: 2 minutes here.
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, actionTokenGeneratedByAdminLifespan: 120 }).expect(204);
  const link = await inviteAlice();
  const [sent] = await invitations();
  expect((sent.expiresAt as number) - (sent.sentDate as number)).toBe(120);
  const real = clock.now;
  clock.now = () => real() + 121_000;
  try {
    const res = await new Jar().fetch(link);
    expect(res.status).toBe(400);
    expect(pageError(await res.text())).toBeDefined();
    const api = w.api;
    const list = async (q = '') => (await api.get(`${R}/organizations/${orgId}/invitations${q}`).expect(200)).body;
    expect((await list()).map((i: { status: string }) => i.status)).toEqual(['EXPIRED']);
    expect(await list('?status=PENDING')).toEqual([]);
    await api.post(`${R}/organizations/${orgId}/members/invite-user`).type('form').send({ email: 'alice@example.org' }).expect(204);
    expect((await list()).map((i: { status: string }) => i.status)).toEqual(['PENDING']);
    expect((await list('?status=EXPIRED')).length).toBe(0);
    await smtp.waitFor(1);
  } finally {
    clock.now = real;
    await w.api.put(R, { ...realm, actionTokenGeneratedByAdminLifespan: 43200 }).expect(204);
  }
  expect(await members()).toEqual([]);
});

test('a link whose user changed e-mail, or whose organization is gone, does not join', async () => {
  const link = await inviteAlice();
  const user = (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
  await w.api.put(`${R}/users/${w.userId}`, { ...user, email: 'alice@elsewhere.example' }).expect(204);
  try {
    const res = await new Jar().fetch(link);
    expect(res.status).toBe(400);
    expect(pageError(await res.text())).toBe('This invitation is no longer valid. Ask the organization for a new one.');
  } finally {
    await w.api.put(`${R}/users/${w.userId}`, user).expect(204);
  }
  const org2 = await w.api.post(`${R}/organizations`, { name: 'Gone', alias: 'gone' }).expect(201);
  const goneId = String(org2.headers.location).split('/').pop() as string;
  await w.api.post(`${R}/organizations/${goneId}/members/invite-existing-user`).type('form').send({ id: w.userId }).expect(204);
  const [mail] = await smtp.waitFor(1);
  await w.api.delete(`${R}/organizations/${goneId}`).expect(204);
  const res = await new Jar().fetch(linkOf(mail));
  expect(await res.text()).toContain(`Organization ${goneId} not found.`);
  expect(await members()).toEqual([]);
});
