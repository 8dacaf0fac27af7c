import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { AuthExecutionModel } from '../../../db/models/authentication';
import type { UserModel } from '../../../db/models/user';
import { emailConstraintOf } from '../../users/users';
import { ATTEMPTED_USERNAME, authenticatorConfig, BROWSER_REGISTRY, checkPassword } from '../authenticators';
import type { Authenticator, LoginContext, Outcome, Page, ProfileField, Registry } from '../flow-engine';
import { BROKER_NOTES, type BrokeredIdentity, identityOf } from './brokered-identity';
import { idpEmailVerification } from './idp-email-verification';

/**
 * The authenticators of the first broker login flow (Keycloak's idp-* authenticators): the login has
 * a brokered identity but no local account linked to it yet.
 *  - idp-review-profile (`update.profile.on.first.login`: on, missing, off): the brokered e-mail and
 *    names, reviewed on a page when asked or when one is missing;
 *  - idp-create-user-if-unique: creates the account unless one has the username or (duplicate e-mails
 *    not allowed) the e-mail; then the existing one is remembered for the next steps, and a REQUIRED
 *    execution stops with "User with email ... already exists" (federatedIdentityExistsMessage);
 *  - idp-confirm-link: asks whether to link to that account or review the profile again;
 *  - idp-auto-link: links to that account without asking;
 *  - idp-username-password-form: the existing account's password (re-authentication) before linking;
 *  - idp-email-verification: a mailed link confirms the link (idp-email-verification.ts);
 *  - idp-add-organization-member: a provider of an organization makes the user a managed member.
 */
const flag = (v: unknown) => v === true || v === 'true';

const identity = (ctx: LoginContext): BrokeredIdentity => {
  const id = identityOf(ctx.data.notes);
  if (!id) throw new Error('No brokered identity in the login');
  return id;
};
const saveIdentity = (ctx: LoginContext, id: BrokeredIdentity) => {
  ctx.data.notes[BROKER_NOTES.CONTEXT] = JSON.stringify(id);
};

interface Existing {
  id: string;
  attribute: 'email' | 'username';
  value: string;
}
const existingOf = (ctx: LoginContext): Existing | undefined => {
  const raw = ctx.data.notes[BROKER_NOTES.EXISTING_USER];
  return raw ? (JSON.parse(raw) as Existing) : undefined;
};
const existingUser = async (ctx: LoginContext): Promise<UserModel> => {
  const e = existingOf(ctx);
  const user = e ? await ctx.db.models.User.findByPk(e.id) : null;
  if (!user) throw new Error('No existing account in the login');
  return user;
};

const configOf = async (ctx: LoginContext, exec: AuthExecutionModel) => (await authenticatorConfig(ctx, exec)) ?? {};

const PROFILE = ['username', 'email', 'firstName', 'lastName'] as const;
const LABEL: Record<string, string> = { username: 'username', email: 'email', firstName: 'firstName', lastName: 'lastName' };
const MISSING: Record<string, string> = {
  username: 'missingUsernameMessage',
  email: 'missingEmailMessage',
  firstName: 'missingFirstNameMessage',
  lastName: 'missingLastNameMessage',
};
const EMAIL = /^[^\s@]+@[^\s@]+$/;

const emailAsUsername = (ctx: LoginContext) => flag(ctx.realm.settings.registrationEmailAsUsername);

function profileValues(id: BrokeredIdentity): Record<string, string> {
  return { username: id.modelUsername ?? id.username, email: id.email ?? '', firstName: id.firstName ?? '', lastName: id.lastName ?? '' };
}

/** The review's per-field messages (empty when the brokered profile is complete). */
function profileErrors(ctx: LoginContext, values: Record<string, string>): Map<string, string> {
  const errors = new Map<string, string>();
  for (const name of PROFILE) {
    if (name === 'username' && emailAsUsername(ctx)) continue;
    if (!values[name]) errors.set(name, MISSING[name]);
  }
  if (values.email && !EMAIL.test(values.email)) errors.set('email', 'invalidEmailMessage');
  return errors;
}

function reviewPage(ctx: LoginContext, exec: AuthExecutionModel, values: Record<string, string>, errors?: Map<string, string>): Page {
  const fields: ProfileField[] = PROFILE.filter((n) => n !== 'username' || !emailAsUsername(ctx)).map((name) => ({
    name,
    label: { key: LABEL[name] },
    value: values[name],
    readOnly: false,
    required: true,
    error: errors?.get(name) ? { key: errors.get(name) as string } : undefined,
  }));
  return { page: 'update-profile', executionId: exec.id, verify: false, fields, status: errors?.size ? 400 : 200 };
}

const FORCE_REVIEW = 'ENFORCE_UPDATE_PROFILE';

const reviewProfile: Authenticator = {
  async authenticate(ctx, exec) {
    const mode = (await configOf(ctx, exec))['update.profile.on.first.login'] ?? 'missing';
    const values = profileValues(identity(ctx));
    const force = Boolean(ctx.data.notes[FORCE_REVIEW]);
    if (!force && (mode === 'off' || (mode !== 'on' && profileErrors(ctx, values).size === 0))) return { kind: 'success' };
    return { kind: 'challenge', page: reviewPage(ctx, exec, values) };
  },
  async action(ctx, exec) {
    const id = identity(ctx);
    const form = ctx.form ?? {};
    const values: Record<string, string> = {};
    for (const n of PROFILE) values[n] = typeof form[n] === 'string' ? form[n].trim() : '';
    if (emailAsUsername(ctx)) values.username = values.email;
    const errors = profileErrors(ctx, values);
    if (errors.size) return { kind: 'failure', error: 'invalid_input', page: reviewPage(ctx, exec, values, errors) };
    if ((id.email ?? '') !== values.email) ctx.data.notes[BROKER_NOTES.EMAIL_CHANGED] = 'true';
    saveIdentity(ctx, {
      ...id,
      modelUsername: values.username.toLowerCase(),
      email: values.email.toLowerCase(),
      firstName: values.firstName,
      lastName: values.lastName,
    });
    delete ctx.data.notes[FORCE_REVIEW];
    return { kind: 'success' };
  },
};

/** The account that has the brokered username or e-mail, if any (Keycloak's checkExistingUser). */
async function duplicateOf(ctx: LoginContext, id: BrokeredIdentity): Promise<Existing | undefined> {
  const { db, realm } = ctx;
  const username = id.modelUsername ?? id.username.toLowerCase();
  const email = id.email?.toLowerCase();
  if (email && !flag(realm.settings.duplicateEmailsAllowed)) {
    const u = await db.models.User.findOne({ where: { realmId: realm.id, email }, attributes: ['id'] });
    if (u) return { id: u.id, attribute: 'email', value: email };
  }
  const u = await db.models.User.findOne({ where: { realmId: realm.id, username }, attributes: ['id'] });
  return u ? { id: u.id, attribute: 'username', value: username } : undefined;
}

const createUserIfUnique: Authenticator = {
  async authenticate(ctx, exec) {
    const { db, realm } = ctx;
    const id = identity(ctx);
    const dup = await duplicateOf(ctx, id);
    if (dup) {
      ctx.data.notes[BROKER_NOTES.EXISTING_USER] = JSON.stringify(dup);
      if (exec.requirement !== 'REQUIRED') return { kind: 'attempted' };
      ctx.ev.userId = dup.id;
      ctx.ev.detail(`existing_${dup.attribute}`, dup.value);
      const message = { key: 'federatedIdentityExistsMessage', params: [dup.attribute, dup.value] };
      return { kind: 'failure', error: 'federated_identity_account_exists', page: { page: 'error', status: 409, message } };
    }
    const userId = randomUUID();
    const email = id.email?.toLowerCase() ?? null;
    const user = await db.transaction(async () => {
      const u = await db.models.User.create({
        id: userId,
        realmId: realm.id,
        username: id.modelUsername ?? id.username.toLowerCase(),
        email,
        emailConstraint: emailConstraintOf(realm, userId, email),
        firstName: id.firstName ?? null,
        lastName: id.lastName ?? null,
        enabled: true,
        emailVerified: false,
        createdTimestamp: Date.now(),
        notBefore: 0,
      });
      const defaultRoleId = realm.settings.defaultRoleId as string | undefined;
      if (defaultRoleId) await db.models.UserRoleMapping.create({ userId, roleId: defaultRoleId });
      const groups = await db.models.RealmDefaultGroup.findAll({ where: { realmId: realm.id }, attributes: ['groupId'] });
      if (groups.length) await db.models.UserGroupMembership.bulkCreate(groups.map((g) => ({ userId, groupId: g.groupId })));
      if (flag((await configOf(ctx, exec))['require.password.update.after.registration'])) {
        await db.models.UserRequiredAction.create({ userId, requiredAction: 'UPDATE_PASSWORD' });
      }
      return u;
    });
    ctx.user = user;
    ctx.data.notes[BROKER_NOTES.REGISTERED_NEW_USER] = 'true';
    return { kind: 'success' };
  },
};

const confirmLink: Authenticator = {
  async authenticate(ctx, exec) {
    const e = existingOf(ctx);
    if (!e) return { kind: 'failure', error: 'identity_provider_error' };
    const message = { key: 'federatedIdentityConfirmLinkMessage', params: [e.attribute, e.value] };
    return { kind: 'challenge', page: { page: 'confirm-link', executionId: exec.id, message } };
  },
  async action(ctx, exec) {
    if (ctx.form?.submitAction === 'updateProfile') {
      ctx.data.notes[FORCE_REVIEW] = 'true';
      delete ctx.data.notes[BROKER_NOTES.EXISTING_USER];
      return { kind: 'reset' };
    }
    if (ctx.form?.submitAction === 'linkAccount') return { kind: 'success' };
    return this.authenticate(ctx, exec);
  },
};

const autoLink: Authenticator = {
  async authenticate(ctx) {
    if (!existingOf(ctx)) return { kind: 'failure', error: 'identity_provider_error' };
    ctx.user = await existingUser(ctx);
    return { kind: 'success' };
  },
};

const reauthPage = (ctx: LoginContext, exec: AuthExecutionModel, user: UserModel, extra: Partial<Page> = {}): Page =>
  ({
    page: 'login',
    variant: 'password',
    executionId: exec.id,
    username: user.username,
    message: { key: 'federatedIdentityConfirmReauthenticateMessage', params: [identity(ctx).alias] },
    ...extra,
  }) as Page;

const usernamePasswordForm: Authenticator = {
  async authenticate(ctx, exec) {
    if (!existingOf(ctx)) return { kind: 'failure', error: 'identity_provider_error' };
    return { kind: 'challenge', page: reauthPage(ctx, exec, await existingUser(ctx)) };
  },
  async action(ctx, exec) {
    const user = await existingUser(ctx);
    const password = typeof ctx.form?.password === 'string' ? ctx.form.password : '';
    const out: Outcome = await checkPassword(ctx, exec, 'password', user, user.username, password);
    ctx.data.notes[ATTEMPTED_USERNAME] = user.username;
    if (out.kind === 'failure' && out.page?.page === 'login')
      return { ...out, page: reauthPage(ctx, exec, user, { message: out.page.message, status: 401 }) };
    return out;
  },
};

const addOrganizationMember: Authenticator = {
  async authenticate(ctx) {
    const { db, realm } = ctx;
    const id = identity(ctx);
    const idp = await db.models.IdentityProvider.findOne({ where: { realmId: realm.id, alias: id.alias }, attributes: ['organizationId'] });
    if (!ctx.user || !idp?.organizationId || !flag(realm.settings.organizationsEnabled)) return { kind: 'success' };
    const org = await db.models.Organization.findOne({ where: { id: idp.organizationId, enabled: true }, attributes: ['id'] });
    if (org) {
      const userId = ctx.user.id;
      const member = await db.models.OrganizationMember.findOne({ where: { organizationId: org.id, userId: { [Op.eq]: userId } } });
      if (!member) await db.models.OrganizationMember.create({ organizationId: org.id, userId, membershipType: 'MANAGED' });
    }
    return { kind: 'success' };
  },
};

/** The registry of the first broker login and post broker login flows: the broker steps and every browser authenticator. */
export const BROKER_REGISTRY: Registry = {
  authenticators: {
    ...BROWSER_REGISTRY.authenticators,
    'idp-review-profile': reviewProfile,
    'idp-create-user-if-unique': createUserIfUnique,
    'idp-confirm-link': confirmLink,
    'idp-auto-link': autoLink,
    'idp-username-password-form': usernamePasswordForm,
    'idp-email-verification': idpEmailVerification,
    'idp-add-organization-member': addOrganizationMember,
  },
  conditions: BROWSER_REGISTRY.conditions,
};
