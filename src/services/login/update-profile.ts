import { Op } from 'sequelize';
import { systemContext } from '../../core/context';
import { isUniqueViolation } from '../../core/db-errors';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import type { UPAttribute, UPConfig } from '../../representations/user-profile';
import { TokenEvent } from '../tokens/token-events';
import { loginUserProfileConfig, type ProfileError, type ProfileValues, validateProfile } from '../users/user-profile';
import { emailConstraintOf } from '../users/users';
import { orderedUuid } from '../users/users-input';
import type { ActionOutcome, ActionPage, ProfileField, RequiredActionImpl } from './action-types';
import type { Message } from './authorize';
import { realmRequiredActions } from './flow-definitions';
import type { LoginContext } from './flow-engine';

/**
 * UPDATE_PROFILE and VERIFY_PROFILE (Keycloak's UpdateProfile and VerifyUserProfile required actions):
 * a form of the realm's user-profile attributes the user may see (`permissions.view`/`edit` with
 * `user`), editable where `edit` names `user`, limited by attribute `selector.scopes` to the scopes the
 * login asked for. The values are checked with the validators of the admin API (`validateProfile`),
 * `required` as it applies to users; errors are shown next to their fields. A saved form updates the
 * user (a changed e-mail is no longer verified) and records UPDATE_PROFILE with previous_ / updated_
 * details. VERIFY_PROFILE runs only while the stored profile fails that check.
 */

const ROOT = new Set(['username', 'email', 'firstName', 'lastName']);
const flag = (v: unknown) => v === true || v === 'true';

/** Keycloak's per-field messages for a missing root attribute. */
const MISSING: Record<string, string> = {
  username: 'missingUsernameMessage',
  email: 'missingEmailMessage',
  firstName: 'missingFirstNameMessage',
  lastName: 'missingLastNameMessage',
};

const userMay = (a: UPAttribute, what: 'view' | 'edit') => {
  const p = a.permissions;
  if (!p) return false;
  return (p.edit ?? []).includes('user') || (what === 'view' && (p.view ?? []).includes('user'));
};

const requestedScopes = (ctx: LoginContext) => new Set((ctx.request.scope ?? '').split(' ').filter(Boolean));

/** The attribute applies to this login: no `selector.scopes`, or one of them was requested. */
function selected(a: UPAttribute, scopes: Set<string>): boolean {
  const list = (a.selector as { scopes?: string[] } | undefined)?.scopes ?? [];
  return !list.length || list.some((s) => scopes.has(s));
}

/** `required` as it applies to the user: for the role `user` (or for everyone), and for the requested scopes if it names any. */
function requiredForUser(a: UPAttribute, scopes: Set<string>): boolean {
  const r = a.required;
  if (!r) return false;
  const roles = r.roles ?? [];
  if (roles.length && !roles.includes('user')) return false;
  const need = r.scopes ?? [];
  return !need.length || need.some((s) => scopes.has(s));
}

export interface Shown {
  attr: UPAttribute;
  editable: boolean;
  required: boolean;
}

/**
 * The attributes of the page, in the configuration's order. `registration` (Keycloak's REGISTRATION
 * context): only what the user may edit, the username always editable (there is nothing to keep).
 */
export function shownAttributes(ctx: LoginContext, config: UPConfig, registration = false): Shown[] {
  const scopes = requestedScopes(ctx);
  const emailAsUsername = flag(ctx.realm.settings.registrationEmailAsUsername);
  const out: Shown[] = [];
  for (const attr of config.attributes ?? []) {
    if (!selected(attr, scopes) || !userMay(attr, 'view')) continue;
    if (attr.name === 'username' && emailAsUsername) continue;
    let editable = userMay(attr, 'edit');
    if (attr.name === 'username' && !registration && !flag(ctx.realm.settings.editUsernameAllowed)) editable = false;
    if (registration && !editable) continue;
    out.push({ attr, editable, required: editable && requiredForUser(attr, scopes) });
  }
  return out;
}

async function storedAttributes(ctx: LoginContext, user: UserModel): Promise<Record<string, string[]>> {
  const rows = await ctx.db.models.UserAttribute.findAll({ where: { userId: user.id }, attributes: ['name', 'value'] });
  const out: Record<string, string[]> = {};
  for (const r of rows) {
    out[r.name] = out[r.name] ?? [];
    out[r.name].push(r.value ?? '');
  }
  return out;
}

const valuesOf = (user: UserModel, attributes: Record<string, string[]>): ProfileValues => ({
  username: user.username,
  email: user.email,
  firstName: user.firstName,
  lastName: user.lastName,
  attributes,
});

export const listOf = (values: ProfileValues, name: string): string[] => {
  const raw = ROOT.has(name) ? values[name as 'email'] : values.attributes[name];
  return (Array.isArray(raw) ? raw : raw == null ? [] : [raw]).filter((v) => v !== '' && v != null) as string[];
};

/** Every value of an attribute, blanks kept (the inputs of a multi-valued one as the form shows them). */
const rawListOf = (values: ProfileValues, name: string): string[] => {
  const raw = ROOT.has(name) ? values[name as 'email'] : values.attributes[name];
  return Array.isArray(raw) ? raw.map(String) : raw == null ? [] : [String(raw)];
};

/**
 * The controls of a multi-valued attribute that work without script (Keycloak's login theme adds and
 * removes inputs with script): submit buttons that show the form again, with one more empty input
 * (`kc-add-value=<attribute>`) or without one of them (`kc-remove-value=<attribute>:<index>`).
 * Nothing is validated or saved then.
 */
export const ADD_VALUE = 'kc-add-value';
export const REMOVE_VALUE = 'kc-remove-value';

/** A multi-valued attribute whose values are chosen from its `options` (a multiselect), not typed. */
export const choosesOptions = (a: UPAttribute) => Array.isArray(a.validations?.options?.options);

/**
 * The profile a posted form gives (Keycloak's UserProfile from the form's MultivaluedMap): from `base`,
 * each editable attribute set to what was posted, every input of its name for a multi-valued attribute
 * (the first for others), blanks dropped; e-mail and username lower-cased. `display` is set when the
 * form's add / remove control was pressed: the values as the form is to show them again.
 */
export function postedProfile(
  ctx: Pick<LoginContext, 'formValues'>,
  form: Record<string, string>,
  shown: Shown[],
  base: ProfileValues,
): { values: ProfileValues; display?: ProfileValues } {
  const values: ProfileValues = { ...base, attributes: { ...base.attributes } };
  const display: ProfileValues = { ...base, attributes: { ...base.attributes } };
  const add = typeof form[ADD_VALUE] === 'string' ? form[ADD_VALUE] : undefined;
  const remove = typeof form[REMOVE_VALUE] === 'string' ? /^(.*):(\d+)$/.exec(form[REMOVE_VALUE]) : null;
  for (const { attr, editable } of shown) {
    if (!editable) continue;
    const name = attr.name;
    const one = typeof form[name] === 'string' ? [form[name]] : [];
    const posted = (attr.multivalued ? (ctx.formValues?.[name] ?? one) : one.slice(0, 1)).map((v) => v.trim());
    const shownList = [...posted];
    if (attr.multivalued && add === name) shownList.push('');
    if (attr.multivalued && remove?.[1] === name) shownList.splice(Number(remove[2]), 1);
    const kept = posted.filter((v) => v !== '');
    if (ROOT.has(name)) {
      const v = kept[0] ?? '';
      const value = name === 'email' || name === 'username' ? v.toLowerCase() : v;
      values[name as 'email'] = value || null;
      display[name as 'email'] = value || null;
    } else {
      if (kept.length) values.attributes[name] = kept;
      else delete values.attributes[name];
      display.attributes[name] = shownList;
    }
  }
  return add !== undefined || typeof form[REMOVE_VALUE] === 'string' ? { values, display } : { values };
}

/** The label of an attribute: `${key}` display names and the root attributes are message keys. */
function labelOf(a: UPAttribute): Message {
  const d = typeof a.displayName === 'string' ? a.displayName : '';
  const m = /^\$\{(.+)\}$/.exec(d);
  if (m) return { key: m[1] };
  if (d) return { key: d };
  return { key: a.name };
}

/** The errors of `values` for the attributes the user edits (validators of the admin API, `required` for users). */
export function profileErrors(ctx: LoginContext, config: UPConfig, shown: Shown[], values: ProfileValues): Map<string, Message> {
  const editable = shown.filter((s) => s.editable);
  const fields = new Set(editable.map((s) => s.attr.name));
  const errors = new Map<string, Message>();
  for (const s of editable) {
    if (s.required && !listOf(values, s.attr.name).length)
      errors.set(s.attr.name, { key: MISSING[s.attr.name] ?? 'error-user-attribute-required' });
  }
  const found: ProfileError[] = validateProfile(config, ctx.realm, values, fields).filter(
    (e) => e.errorMessage !== 'error-user-attribute-required',
  );
  for (const e of found) {
    if (errors.has(e.field)) continue;
    const params = e.params.map((p) => (p === null || p === undefined ? '' : String(p)));
    errors.set(e.field, { key: e.errorMessage === 'error-invalid-email' ? 'invalidEmailMessage' : e.errorMessage, params });
  }
  return errors;
}

async function state(ctx: LoginContext) {
  const user = ctx.user as UserModel;
  const config = await loginUserProfileConfig(systemContext(ctx.db), ctx.realm);
  const shown = shownAttributes(ctx, config);
  const attributes = await storedAttributes(ctx, user);
  return { user, config, shown, attributes, values: valuesOf(user, attributes) };
}

function page(
  alias: string,
  verify: boolean,
  shown: Shown[],
  values: ProfileValues,
  errors: Map<string, Message>,
  status?: number,
): ActionPage {
  return {
    page: 'update-profile',
    executionId: alias,
    verify,
    fields: profileFields(shown, values, errors),
    ...(status ? { status } : {}),
  };
}

/** The fields of a profile form (update-profile, register): label, value, options, input type, error. */
export function profileFields(shown: Shown[], values: ProfileValues, errors: Map<string, Message>): ProfileField[] {
  return shown.map((s) => {
    const options = s.attr.validations?.options?.options;
    const multivalued = Boolean(s.attr.multivalued);
    const typed = typeof s.attr.annotations?.inputType === 'string' ? s.attr.annotations.inputType : undefined;
    // Options of a multi-valued attribute: a multiselect (Keycloak's inputType), unless the annotation says checkboxes.
    const inputType = multivalued && Array.isArray(options) && typed !== 'multiselect-checkboxes' ? 'multiselect' : typed;
    const list = multivalued ? rawListOf(values, s.attr.name) : [];
    return {
      name: s.attr.name,
      label: labelOf(s.attr),
      value: multivalued ? listOf(values, s.attr.name).join(', ') : (listOf(values, s.attr.name)[0] ?? ''),
      readOnly: !s.editable,
      required: s.required,
      ...(multivalued ? { multivalued, values: list.length || !s.editable ? list : [''] } : {}),
      ...(Array.isArray(options) ? { options: options.map(String) } : {}),
      ...(inputType ? { inputType } : {}),
      ...(errors.has(s.attr.name) ? { error: errors.get(s.attr.name) } : {}),
    };
  });
}

/** Whether the stored profile passes the check of the update-profile form (VERIFY_PROFILE's trigger). */
export async function profileValid(ctx: LoginContext): Promise<{ valid: boolean; fields: string[] }> {
  const s = await state(ctx);
  const errors = profileErrors(ctx, s.config, s.shown, s.values);
  return { valid: errors.size === 0, fields: [...errors.keys()] };
}

/**
 * VERIFY_PROFILE's trigger outside a browser login (the password grant, Keycloak's
 * VerifyUserProfile.evaluateTriggers): the realm has the action enabled and the stored profile fails
 * the user-profile check for the requested scopes.
 */
export async function verifyProfilePending(db: Db, realm: RealmModel, user: UserModel, scope: string): Promise<boolean> {
  const action = (await realmRequiredActions(db, realm)).find((d) => d.alias === 'VERIFY_PROFILE');
  if (!action?.enabled) return false;
  // The check reads only the database, the realm, the user and the requested scopes of a login context.
  const ctx = { db, realm, user, request: { scope } } as unknown as LoginContext;
  return !(await profileValid(ctx)).valid;
}

function profileAction(verify: boolean): RequiredActionImpl {
  return {
    async skip(ctx) {
      if (!verify) return undefined;
      return (await profileValid(ctx)).valid ? 'done' : undefined;
    },
    async challenge(ctx, alias) {
      const s = await state(ctx);
      if (!verify) return page(alias, false, s.shown, s.values, new Map());
      const errors = profileErrors(ctx, s.config, s.shown, s.values);
      const ev = new TokenEvent(ctx.db, ctx.realm, 'VERIFY_PROFILE', ctx.ipAddress);
      ev.clientId = ctx.client.clientId;
      ev.userId = s.user.id;
      await ev.detail('fields_to_update', [...errors.keys()].join(',')).success();
      return page(alias, true, s.shown, s.values, errors);
    },
    async process(ctx, alias, form): Promise<ActionOutcome> {
      const s = await state(ctx);
      const emailAsUsername = flag(ctx.realm.settings.registrationEmailAsUsername);
      const posted = postedProfile(ctx, form, s.shown, s.values);
      // "Add" / "remove" of a multi-valued attribute: the form again, nothing checked or saved.
      if (posted.display) return { kind: 'challenge', page: page(alias, verify, s.shown, posted.display, new Map()) };
      const next = posted.values;
      if (emailAsUsername && next.email) next.username = next.email;
      const again = (errors: Map<string, Message>) => ({
        kind: 'challenge' as const,
        page: page(alias, verify, s.shown, next, errors, 400),
      });
      const fail = new TokenEvent(ctx.db, ctx.realm, 'UPDATE_PROFILE', ctx.ipAddress);
      fail.clientId = ctx.client.clientId;
      fail.userId = s.user.id;
      fail.detail('username', s.user.username).detail('context', 'UPDATE_PROFILE');
      const errors = profileErrors(ctx, s.config, s.shown, next);
      await duplicateErrors(ctx, next, s.user, errors);
      if (errors.size) {
        await fail.detail('fields_to_update', [...errors.keys()].join(',')).error('invalid_input');
        return again(errors);
      }
      const changes = await save(ctx, s.user, s.shown, s.values, next);
      if (changes === 'conflict') {
        await fail.error('invalid_input');
        return again(new Map([[emailAsUsername ? 'email' : 'username', { key: 'usernameExistsMessage' }]]));
      }
      const ev = new TokenEvent(ctx.db, ctx.realm, 'UPDATE_PROFILE', ctx.ipAddress);
      ev.clientId = ctx.client.clientId;
      ev.userId = s.user.id;
      ev.detail('username', next.username).detail('context', 'UPDATE_PROFILE');
      for (const [k, v] of Object.entries(changes)) ev.detail(k, v);
      await ev.success();
      return { kind: 'success' };
    },
  };
}

/**
 * Keycloak's duplicate checks of a profile (DuplicateUsernameValidator, DuplicateEmailValidator): a
 * username or e-mail another user of the realm has (`self`: the user being edited, unchanged values
 * pass), the e-mail only unless `duplicateEmailsAllowed`; with `registrationEmailAsUsername` the taken
 * username is reported on the e-mail field. Adds to `errors`.
 */
export async function duplicateErrors(
  ctx: Pick<LoginContext, 'db' | 'realm'>,
  next: ProfileValues,
  self: UserModel | null,
  errors: Map<string, Message>,
): Promise<void> {
  const { User } = ctx.db.models;
  const emailAsUsername = flag(ctx.realm.settings.registrationEmailAsUsername);
  const others = self ? { id: { [Op.ne]: self.id } } : {};
  if (!errors.has('username') && next.username && next.username !== self?.username) {
    const taken = await User.findOne({ where: { realmId: ctx.realm.id, username: next.username, ...others }, attributes: ['id'] });
    if (taken)
      errors.set(emailAsUsername ? 'email' : 'username', { key: emailAsUsername ? 'emailExistsMessage' : 'usernameExistsMessage' });
  }
  const duplicatesAllowed = flag(ctx.realm.settings.duplicateEmailsAllowed) && !emailAsUsername;
  if (!errors.has('email') && next.email && next.email !== self?.email && !duplicatesAllowed) {
    const taken = await User.findOne({ where: { realmId: ctx.realm.id, email: next.email, ...others }, attributes: ['id'] });
    if (taken) errors.set('email', { key: 'emailExistsMessage' });
  }
}

/** Keycloak's event detail names of a changed attribute. */
const DETAIL_NAMES: Record<string, string> = { firstName: 'first_name', lastName: 'last_name', email: 'email' };

/** Writes the changes; the event details of what changed, or 'conflict' when a unique index refused it. */
async function save(
  ctx: LoginContext,
  user: UserModel,
  shown: Shown[],
  before: ProfileValues,
  next: ProfileValues,
): Promise<Record<string, string> | 'conflict'> {
  const details: Record<string, string> = {};
  const changed: string[] = [];
  for (const name of new Set([
    ...shown.filter((s) => s.editable).map((s) => s.attr.name),
    ...(next.username !== before.username ? ['username'] : []),
  ])) {
    const a = listOf(before, name).join(',');
    const b = listOf(next, name).join(',');
    if (a === b) continue;
    changed.push(name);
    const key = DETAIL_NAMES[name] ?? name;
    details[`previous_${key}`] = a;
    details[`updated_${key}`] = b;
  }
  if (!changed.length) return details;
  const { User, UserAttribute } = ctx.db.models;
  const realm: RealmModel = ctx.realm;
  try {
    await ctx.db.transaction(async () => {
      const fresh = await User.findByPk(user.id);
      if (!fresh) throw new Error('User not found');
      const emailChanged = (next.email ?? null) !== (fresh.email ?? null);
      fresh.set({
        username: next.username ?? fresh.username,
        email: next.email ?? null,
        firstName: next.firstName ?? null,
        lastName: next.lastName ?? null,
        emailConstraint: emailConstraintOf(realm, user.id, next.email ?? null),
      });
      if (emailChanged) fresh.emailVerified = false;
      await fresh.save();
      for (const name of changed) {
        if (ROOT.has(name)) continue;
        await UserAttribute.destroy({ where: { userId: user.id, name } });
        const values = next.attributes[name] ?? [];
        if (values.length) await UserAttribute.bulkCreate(values.map((value) => ({ id: orderedUuid(), userId: user.id, name, value })));
      }
      Object.assign(user, { username: fresh.username, email: fresh.email, firstName: fresh.firstName, lastName: fresh.lastName });
      user.emailVerified = fresh.emailVerified;
    });
  } catch (e) {
    if (isUniqueViolation(e)) return 'conflict';
    throw e;
  }
  return details;
}

export const updateProfileAction = profileAction(false);
export const verifyProfileAction = profileAction(true);
