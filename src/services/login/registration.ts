import { nowSeconds } from '../../core/clock';
import { systemContext } from '../../core/context';
import { HttpError } from '../../core/errors';
import type { Db } from '../../db';
import type { AuthExecutionModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { TokenEvent } from '../tokens/token-events';
import { checkPasswordPolicy } from '../users/password-policy';
import { loginUserProfileConfig, type ProfileValues } from '../users/user-profile';
import { newUserRows, registerUser } from '../users/users';
import { attributeRows } from '../users/users-input';
import { ATTEMPTED_USERNAME, BROWSER_REGISTRY } from './authenticators';
import type { Message } from './authorize';
import { type FlowDefinitions, flowIdByAlias } from './flow-definitions';
import type { FormAuthenticator, LoginContext, Outcome, Page, Registry } from './flow-engine';
import { RECAPTCHA, recaptchaWidget, validateRecaptcha } from './registration-recaptcha';
import { duplicateErrors, postedProfile, profileErrors, profileFields, type Shown, shownAttributes } from './update-profile';

/**
 * Self-registration (Keycloak's registration flow, the realm's `registrationFlow`): the form
 * authenticator registration-page-form (RegistrationPage) renders one form for the enabled form
 * actions of its `form-flow` sub-flow and, on its POST, runs Keycloak's FormAuthenticationFlow: every
 * action validates (errors are collected and shown next to their fields), then, when none failed,
 * every action's success part runs and the user is created in one transaction. The actions:
 *  - registration-user-creation (RegistrationUserCreation): the realm's user profile in the
 *    REGISTRATION context (update-profile.ts decides the attributes and validates them), duplicate
 *    username / e-mail, `registrationEmailAsUsername`; an organization invitation fixes the e-mail;
 *  - registration-password-action (RegistrationPassword): `password` / `password-confirm`, the policy;
 *  - registration-terms-and-conditions (RegistrationTermsAndConditions): `termsAccepted`, stored as the
 *    user's terms_and_conditions attribute.
 *  - registration-recaptcha-action (RegistrationRecaptcha): registration-recaptcha.ts.
 * Another enabled action (registration-recaptcha-enterprise ...) stops the registration with a page
 * naming it, never passed over silently. Events: REGISTER (register_method=form) or REGISTER_ERROR
 * (invalid_registration, username_in_use, email_in_use); then the login completes as any other.
 */

const flag = (v: unknown) => v === true || v === 'true';

/** Notes of a registration login. */
export const REGISTRATION_PATH = 'registration';
/** The organization invitation a registration completes (JSON: jti, orgId, email, reduri). */
export const INVITATION_NOTE = 'REGISTRATION_INVITATION';

export interface RegistrationInvitation {
  jti: string;
  orgId: string;
  email: string;
  reduri?: string;
}

export const isRegistrationLogin = (ctx: { data: { notes: Record<string, string> } }) => ctx.data.notes.FLOW_PATH === REGISTRATION_PATH;

export const invitationOf = (notes: Record<string, string>): RegistrationInvitation | undefined =>
  notes[INVITATION_NOTE] ? (JSON.parse(notes[INVITATION_NOTE]) as RegistrationInvitation) : undefined;

/** Keycloak's Organizations.isRegistrationAllowed: the realm's `registrationAllowed`, or an organization invitation. */
export const registrationAllowed = (realm: RealmModel, notes: Record<string, string> = {}) =>
  flag(realm.settings.registrationAllowed) || Boolean(notes[INVITATION_NOTE]);

/**
 * `prompt=create` on the authorization endpoint (OpenID Connect Prompt Create, Keycloak's
 * AuthorizationEndpoint): the login starts on the registration form, or is refused with a page.
 */
export async function promptCreateStart(
  db: Db,
  realm: RealmModel,
  ipAddress: string | undefined,
  clientId: string | undefined,
): Promise<{ notes: Record<string, string> } | { refused: Page }> {
  if (registrationAllowed(realm)) return { notes: { FLOW_PATH: REGISTRATION_PATH } };
  const ev = new TokenEvent(db, realm, 'REGISTER', ipAddress);
  ev.clientId = clientId ?? null;
  await ev.error('registration_disabled');
  return { refused: { page: 'error', status: 400, message: { key: 'registrationNotAllowedMessage' } } };
}

/** The realm's registration flow (registrationFlow, "registration" by default), from its flow definitions. */
export function registrationFlowId(realm: RealmModel, defs: FlowDefinitions): string | undefined {
  const alias = typeof realm.settings.registrationFlow === 'string' ? realm.settings.registrationFlow : 'registration';
  return flowIdByAlias(defs, alias);
}

const USER_CREATION = 'registration-user-creation';
const PASSWORD = 'registration-password-action';
const TERMS = 'registration-terms-and-conditions';
const KNOWN = new Set([USER_CREATION, PASSWORD, TERMS, RECAPTCHA]);

/** The field name of each of the page's own messages (the profile's are on its fields). */
type FormErrors = Map<string, Message>;
/** The key of a message for the whole form (a directory that could not create the user). */
const FORM_MESSAGE = '';

const text = (form: Record<string, string> | undefined, name: string) => (typeof form?.[name] === 'string' ? form[name] : '');

/** The profile part of the form: the attributes, the values posted (the invitation's e-mail fixed). */
async function profileOf(ctx: LoginContext) {
  const config = await loginUserProfileConfig(systemContext(ctx.db, ctx.baseUrl), ctx.realm);
  const invitation = invitationOf(ctx.data.notes);
  const shown: Shown[] = shownAttributes(ctx, config, true).map((s) =>
    s.attr.name === 'email' && invitation ? { ...s, editable: false, required: true } : s,
  );
  const base: ProfileValues = { username: null, email: null, firstName: null, lastName: null, attributes: {} };
  const { values, display } = postedProfile(ctx, ctx.form ?? {}, shown, base);
  for (const v of display ? [values, display] : [values]) {
    if (invitation) v.email = invitation.email;
    if (flag(ctx.realm.settings.registrationEmailAsUsername)) v.username = v.email ?? null;
  }
  return { config, shown, values, display, invitation };
}

async function registerPage(
  ctx: LoginContext,
  exec: AuthExecutionModel,
  actions: AuthExecutionModel[],
  shown: Shown[],
  values: ProfileValues,
  errors: FormErrors = new Map(),
): Promise<Page> {
  const has = (id: string) => actions.some((a) => a.authenticator === id);
  const own = (name: string) => errors.get(name);
  const captchaExec = actions.find((a) => a.authenticator === RECAPTCHA);
  const captcha = captchaExec ? await recaptchaWidget(ctx, captchaExec) : undefined;
  const message = own('recaptcha') ?? own(FORM_MESSAGE) ?? (captcha === 'not-configured' ? { key: 'recaptchaNotConfigured' } : undefined);
  return {
    ...(captcha && captcha !== 'not-configured' ? { recaptcha: captcha } : {}),
    ...(message ? { message } : {}),
    page: 'register',
    executionId: exec.id,
    // The fields keep what was typed (never the password); each error is shown next to its field.
    fields: profileFields(shown, values, errors),
    password: has(PASSWORD),
    terms: has(TERMS),
    errors: Object.fromEntries(['password', 'password-confirm', 'termsAccepted'].filter((n) => own(n)).map((n) => [n, own(n) as Message])),
  };
}

/** An enabled form action this server does not run: the registration stops with a page naming it. */
function unsupported(actions: AuthExecutionModel[]): Outcome | undefined {
  const other = actions.find((a) => !KNOWN.has(a.authenticator ?? ''));
  if (!other) return undefined;
  return {
    kind: 'failure',
    error: 'not_implemented',
    page: { page: 'error', status: 501, message: { key: 'unsupportedStepMessage', params: [other.authenticator ?? ''] } },
  };
}

/** The REGISTER event of this login, with Keycloak's details. */
function registerEvent(ctx: LoginContext, values: ProfileValues): TokenEvent {
  const ev = new TokenEvent(ctx.db, ctx.realm, 'REGISTER', ctx.ipAddress);
  ev.clientId = ctx.client.clientId;
  return ev
    .detail('auth_method', 'openid-connect')
    .detail('auth_type', 'code')
    .detail('redirect_uri', ctx.request.redirect_uri)
    .detail('code_id', ctx.authSession.id)
    .detail('register_method', 'form')
    .detail('username', values.username)
    .detail('email', values.email)
    .detail('first_name', values.firstName)
    .detail('last_name', values.lastName);
}

/** Keycloak's event error of a failed RegistrationUserCreation validation. */
const userCreationError = (errors: FormErrors): string => {
  const keys = [...errors.values()].map((m) => m.key);
  if (keys.includes('emailExistsMessage')) return 'email_in_use';
  if (keys.includes('usernameExistsMessage')) return 'username_in_use';
  return 'invalid_registration';
};

/** registration-user-creation's validation: the profile, the username, the invitation's address, duplicates. */
async function validateUser(ctx: LoginContext, p: Awaited<ReturnType<typeof profileOf>>, errors: FormErrors): Promise<string | undefined> {
  const found = profileErrors(ctx, p.config, p.shown, p.values);
  const emailAsUsername = flag(ctx.realm.settings.registrationEmailAsUsername);
  if (emailAsUsername && !p.values.email && !found.has('email')) found.set('email', { key: 'missingEmailMessage' });
  if (!emailAsUsername && !p.values.username && !found.has('username')) found.set('username', { key: 'missingUsernameMessage' });
  const posted = text(ctx.form, 'email').trim().toLowerCase();
  if (p.invitation && posted && posted !== p.invitation.email) found.set('email', { key: 'invitationEmailMismatch' });
  await duplicateErrors(ctx, p.values, null, found);
  for (const [k, v] of found) errors.set(k, v);
  return found.size ? userCreationError(found) : undefined;
}

/** registration-password-action's validation: present, confirmed, and the realm's password policy. */
async function validatePassword(ctx: LoginContext, values: ProfileValues, errors: FormErrors): Promise<string | undefined> {
  const password = text(ctx.form, 'password');
  const before = errors.size;
  if (!password) errors.set('password', { key: 'missingPasswordMessage' });
  else if (password !== text(ctx.form, 'password-confirm')) errors.set('password-confirm', { key: 'invalidPasswordConfirmMessage' });
  if (password) {
    const violation = await checkPasswordPolicy(ctx.db, ctx.realm, { username: values.username, email: values.email }, password);
    if (violation && !errors.has('password'))
      errors.set('password', { key: String(violation.body.error), params: [violation.policyParam] });
  }
  return errors.size > before ? 'invalid_registration' : undefined;
}

/** registration-terms-and-conditions' validation: the box is ticked. */
function validateTerms(ctx: LoginContext, errors: FormErrors): string | undefined {
  if (ctx.form && 'termsAccepted' in ctx.form) return undefined;
  errors.set('termsAccepted', { key: 'termsAcceptanceRequired' });
  return 'invalid_registration';
}

/** The user the actions' success parts make, in one transaction; the organization invitation is accepted in it. */
async function createRegisteredUser(
  ctx: LoginContext,
  actions: AuthExecutionModel[],
  p: Awaited<ReturnType<typeof profileOf>>,
): Promise<string> {
  const sys = systemContext(ctx.db, ctx.baseUrl);
  const has = (id: string) => actions.some((a) => a.authenticator === id);
  const password = text(ctx.form, 'password');
  const rows = await newUserRows(
    sys,
    ctx.realm,
    {
      username: p.values.username ?? undefined,
      email: p.values.email ?? undefined,
      firstName: p.values.firstName ?? undefined,
      lastName: p.values.lastName ?? undefined,
      attributes: p.values.attributes,
      enabled: true,
      // The invitation reached this address (Keycloak's RegistrationUserCreation marks it verified).
      emailVerified: Boolean(p.invitation),
      ...(has(PASSWORD) ? { credentials: [{ type: 'password', value: password, temporary: false }] } : {}),
    },
    { profileChecked: true },
  );
  if (has(TERMS)) rows.attributes.push(...attributeRows(rows.id, { terms_and_conditions: [String(nowSeconds())] }));
  const invitation = p.invitation;
  const m = ctx.db.models;
  // The password goes to the directory too when an LDAP provider synchronizes registrations.
  await registerUser(sys, ctx.realm, rows, {
    ...(has(PASSWORD) ? { password } : {}),
    after: async (userId) => {
      if (!invitation) return;
      await m.OrganizationMember.create({ organizationId: invitation.orgId, userId, membershipType: 'UNMANAGED' });
      await m.OrganizationInvitation.destroy({ where: { id: invitation.jti } });
    },
  });
  return rows.id;
}

/** registration-page-form: the form of the registration flow (RegistrationPage with FormAuthenticationFlow). */
const registrationPage: FormAuthenticator = {
  async authenticate(ctx, exec, actions) {
    const stop = unsupported(actions);
    if (stop) return stop;
    const p = await profileOf(ctx);
    return { kind: 'challenge', page: await registerPage(ctx, exec, actions, p.shown, p.values) };
  },
  async action(ctx, exec, actions) {
    const stop = unsupported(actions);
    if (stop) return stop;
    const p = await profileOf(ctx);
    // "Add" / "remove" of a multi-valued attribute: the form again, nothing checked or created.
    if (p.display) return { kind: 'challenge', page: await registerPage(ctx, exec, actions, p.shown, p.display) };
    const ev = registerEvent(ctx, p.values);
    const errors: FormErrors = new Map();
    let error: string | undefined;
    for (const a of actions) {
      const found =
        a.authenticator === USER_CREATION
          ? await validateUser(ctx, p, errors)
          : a.authenticator === PASSWORD
            ? await validatePassword(ctx, p.values, errors)
            : a.authenticator === RECAPTCHA
              ? await validateRecaptcha(ctx, a, errors)
              : validateTerms(ctx, errors);
      error ??= found;
    }
    const again = async (code: string): Promise<Outcome> => {
      await ev.error(code);
      return { kind: 'failure', error: code, page: await registerPage(ctx, exec, actions, p.shown, p.values, errors) };
    };
    if (error) return again(error);
    let userId: string;
    try {
      userId = await createRegisteredUser(ctx, actions, p);
    } catch (e) {
      if (!(e instanceof HttpError) || (e.status !== 409 && e.status !== 400)) throw e;
      // The LDAP provider that synchronizes registrations could not create the entry: the form again, its message on top.
      if (e.status === 400) {
        errors.set(FORM_MESSAGE, { key: String(e.body.errorMessage ?? 'Could not create user') });
        return again('invalid_registration');
      }
      // Registered at the same moment by another request (or already in the directory): the unique index decided.
      const email = /email/.test(String(e.body.errorMessage)) || flag(ctx.realm.settings.registrationEmailAsUsername);
      errors.set(email ? 'email' : 'username', { key: email ? 'emailExistsMessage' : 'usernameExistsMessage' });
      return again(email ? 'email_in_use' : 'username_in_use');
    }
    const user = await ctx.db.models.User.findByPk(userId);
    if (!user) throw new Error('The registered user is gone');
    ctx.user = user;
    ctx.data.notes[ATTEMPTED_USERNAME] = user.username;
    ev.userId = user.id;
    if (p.invitation) ev.detail('org_id', p.invitation.orgId);
    await ev.success();
    // An invitation's login goes on to the organization's redirect URL (Keycloak sets it on the login).
    if (p.invitation?.reduri) ctx.request.redirect_uri = p.invitation.reduri;
    return { kind: 'success' };
  },
};

/** The registration flow's registry: its form, and the browser flow's conditions. */
export const REGISTRATION_REGISTRY: Registry = {
  authenticators: {},
  conditions: BROWSER_REGISTRY.conditions,
  forms: { 'registration-page-form': registrationPage },
};
