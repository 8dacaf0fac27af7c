import { createHash } from 'node:crypto';
import { requireCap } from '../../auth/permissions';
import type { VersionedRealm } from '../../auth/realm-keys';
import type { RealmModel } from '../../db/models/realm';
import { isUniqueViolation } from '../../core/db-errors';
import { badRequest, cannotParse, HttpError } from '../../core/errors';
import { ROOT_USER_ATTRIBUTES } from '../../representations/user';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { deepFreeze, realmStamp, sharedMemo } from '../../core/shared-cache';
import type { UPAttribute, UPConfig, UPValidatorConfig } from '../../representations/user-profile';
import { keptForRealm } from '../tokens/client-config-cache';

/**
 * The declarative user profile (reference §4.16): the realm's UP config, stored as a component
 * only once changed (the default is implicit), the admin-context attribute rules derived from it
 * (which custom attributes an admin may read and write) and the attribute validators.
 */
export const UP_PROVIDER_TYPE = 'org.keycloak.userprofile.UserProfileProvider';
export const UP_PROVIDER_ID = 'declarative-user-profile';
export const UP_CONFIG_KEY = 'kc.user.profile.config';

const BOTH = () => ({ view: ['admin', 'user'], edit: ['admin', 'user'] });

/** Keycloak 26's default UP config; the master realm has no `required` blocks. */
export function defaultUserProfileConfig(realm: RealmModel): UPConfig {
  const req = realm.name === 'master' ? {} : { required: { roles: ['user'] } };
  return {
    attributes: [
      {
        name: 'username',
        displayName: '${username}',
        validations: { length: { min: 3, max: 255 }, 'username-prohibited-characters': {}, 'up-username-not-idn-homograph': {} },
        permissions: BOTH(),
        multivalued: false,
      },
      {
        name: 'email',
        displayName: '${email}',
        validations: { email: {}, length: { max: 255 } },
        ...req,
        permissions: BOTH(),
        multivalued: false,
      },
      {
        name: 'firstName',
        displayName: '${firstName}',
        validations: { length: { max: 255 }, 'person-name-prohibited-characters': {} },
        ...req,
        permissions: BOTH(),
        multivalued: false,
      },
      {
        name: 'lastName',
        displayName: '${lastName}',
        validations: { length: { max: 255 }, 'person-name-prohibited-characters': {} },
        ...req,
        permissions: BOTH(),
        multivalued: false,
      },
    ],
    groups: [{ name: 'user-metadata', displayHeader: 'User metadata', displayDescription: 'Attributes, which refer to user metadata' }],
  };
}

/** One UP component per realm: its id is derived from the realm id, so the primary key keeps it single. */
const componentId = (realm: RealmModel) => {
  const h = createHash('sha1').update(`user-profile:${realm.id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/**
 * The realm's UP config (stored or default), read and parsed once per realm version on this node and
 * shared, frozen, by every request (ADR 23): building or parsing it was ~3 % of a GET /users/{id}.
 * Callers read it; a change is a new config written through `updateUserProfile`.
 */
export function userProfileConfig(ctx: RequestContext, realm: RealmModel): Promise<UPConfig> {
  return sharedMemo(ctx, `up-config:${realm.id}`, realmStamp(ctx, realm.id), () => readUserProfileConfig(ctx, realm));
}

/**
 * The UP config for a login or token request (no admin write scope): kept per node under the cache
 * version the realm was read with on the public endpoint (`realmWithVersion`; components raise it,
 * migration 0013); a realm read without one computes afresh. Shared and frozen, as above.
 */
export function loginUserProfileConfig(ctx: RequestContext, realm: RealmModel): Promise<UPConfig> {
  const version = (realm as VersionedRealm).cacheVersion;
  const stamp = version === undefined || version < 0 ? undefined : `${realm.id}:${version}`;
  return keptForRealm(ctx.db, `up-config:${realm.id}`, stamp, () => readUserProfileConfig(ctx, realm));
}

async function readUserProfileConfig(ctx: RequestContext, realm: RealmModel): Promise<UPConfig> {
  const row = await ctx.db.models.Component.findOne({ where: { realmId: realm.id, providerType: UP_PROVIDER_TYPE } });
  const raw = row?.config?.[UP_CONFIG_KEY]?.[0];
  if (raw) {
    try {
      return deepFreeze(JSON.parse(raw) as UPConfig);
    } catch {
      ctx.log.warn(`Unreadable user profile config of realm ${realm.name}; using the default`);
    }
  }
  return deepFreeze(defaultUserProfileConfig(realm));
}

/** GET /admin/realms/{realm}/users/profile: the UP config (any admin role). */
export async function getUserProfile(ctx: RequestContext, realm: RealmModel): Promise<UPConfig> {
  await requireCap(ctx, realm, 'anyAdmin');
  return userProfileConfig(ctx, realm);
}

const POLICIES = new Set(['ENABLED', 'ADMIN_VIEW', 'ADMIN_EDIT']);

function checkConfig(body: unknown): UPConfig {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw cannotParse('mapping');
  const config = body as UPConfig;
  if (config.attributes !== undefined && config.attributes !== null && !Array.isArray(config.attributes)) throw cannotParse('mapping');
  const attrs = config.attributes ?? [];
  for (const a of attrs) {
    if (typeof a !== 'object' || a === null || Array.isArray(a)) throw cannotParse('mapping');
    if (typeof a.name !== 'string' || !a.name.trim()) throw badRequest('[Attribute name is required]');
  }
  const names = attrs.map((a) => a.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw badRequest(`[Duplicated attribute name '${dup}']`);
  const missing = ['username', 'email'].filter((n) => !names.includes(n));
  if (missing.length) throw badRequest(`[${missing.map((n) => `The attribute '${n}' can not be removed`).join(', ')}]`);
  const policy = config.unmanagedAttributePolicy;
  if (policy !== undefined && policy !== null && !POLICIES.has(String(policy))) throw cannotParse('mapping');
  return config;
}

/** PUT /admin/realms/{realm}/users/profile: stores the UP config (manage-realm) and returns it; empty body resets. */
export async function updateUserProfile(ctx: RequestContext, realm: RealmModel, body: unknown): Promise<UPConfig> {
  await requireCap(ctx, realm, 'manageRealm');
  const id = componentId(realm);
  const { Component } = ctx.db.models;
  if (body === undefined || body === null) {
    await ctx.db.transaction(async () => {
      await Component.destroy({ where: { realmId: realm.id, providerType: UP_PROVIDER_TYPE } });
      await recordAdminEvent(ctx, realm, { operationType: 'UPDATE', resourceType: 'USER_PROFILE', resourcePath: 'users/profile' });
    });
    ctx.memo.delete(`up-config:${realm.id}`);
    ctx.memo.delete(`up-config-text:${realm.id}`);
    return defaultUserProfileConfig(realm);
  }
  const config = checkConfig(typeof body === 'string' ? parseConfigText(body) : body);
  const stored = { [UP_CONFIG_KEY]: [JSON.stringify(config)] };
  const write = () =>
    ctx.db.transaction(async () => {
      const row = await Component.findByPk(id);
      if (row) {
        row.config = stored;
        await row.save();
      } else {
        await Component.create({
          id,
          realmId: realm.id,
          parentId: realm.id,
          name: UP_PROVIDER_ID,
          providerId: UP_PROVIDER_ID,
          providerType: UP_PROVIDER_TYPE,
          subType: null,
          config: stored,
        });
      }
      await recordAdminEvent(ctx, realm, {
        operationType: 'UPDATE',
        resourceType: 'USER_PROFILE',
        resourcePath: 'users/profile',
        representation: config,
      });
    });
  try {
    await write();
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    await write(); // a concurrent PUT created the row first: update it
  }
  ctx.memo.delete(`up-config:${realm.id}`);
  ctx.memo.delete(`up-config-text:${realm.id}`);
  return config;
}

function parseConfigText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw cannotParse('syntax');
  }
}

// ---------------------------------------------------------------------------------------------
// Admin-context attribute rules

/** Internal attribute of the bootstrap admin: never writable through the API, always readable. */
export const TEMPORARY_ADMIN_ATTRIBUTE = 'is_temporary_admin';

const adminMay = (a: UPAttribute, what: 'view' | 'edit') => {
  if (!a.permissions) return true;
  const edit = a.permissions.edit ?? [];
  return edit.includes('admin') || (what === 'view' && (a.permissions.view ?? []).includes('admin'));
};

export interface AttributeRules {
  /** Custom attribute an admin may set through the API. */
  canWrite(name: string): boolean;
  /** Custom attribute returned in representations. */
  canRead(name: string): boolean;
  managed: Map<string, UPAttribute>;
}

/**
 * The attributes an LDAP provider keeps on its users (LDAPStorageProvider's user profile decorator):
 * shown to admins, never written through the API.
 */
const FEDERATION_ATTRIBUTES = new Set(['LDAP_ID', 'LDAP_ENTRY_DN', 'createTimestamp', 'modifyTimestamp']);

/** What an admin may read and write, from the managed attributes and `unmanagedAttributePolicy`. */
export function attributeRules(config: UPConfig): AttributeRules {
  const managed = new Map((config.attributes ?? []).map((a) => [a.name, a]));
  const policy = config.unmanagedAttributePolicy;
  return {
    managed,
    canWrite(name) {
      if (name === TEMPORARY_ADMIN_ATTRIBUTE || ROOT_USER_ATTRIBUTES.has(name)) return false;
      if (FEDERATION_ATTRIBUTES.has(name) && !managed.has(name)) return false;
      const a = managed.get(name);
      if (a) return adminMay(a, 'edit');
      return policy === 'ENABLED' || policy === 'ADMIN_EDIT';
    },
    canRead(name) {
      if (name === TEMPORARY_ADMIN_ATTRIBUTE) return true;
      if (ROOT_USER_ATTRIBUTES.has(name)) return false;
      if (FEDERATION_ATTRIBUTES.has(name) && !managed.has(name)) return true;
      const a = managed.get(name);
      if (a) return adminMay(a, 'view');
      return policy === 'ENABLED' || policy === 'ADMIN_EDIT' || policy === 'ADMIN_VIEW';
    },
  };
}

/** The readable subset of a user's stored attributes. */
export function readableAttributes(rules: AttributeRules, stored: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(stored)) if (rules.canRead(k)) out[k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation

export interface ProfileError {
  field: string;
  errorMessage: string;
  params: unknown[];
}

export interface ProfileValues {
  username?: string | null;
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  attributes: Record<string, string[]>;
}

const USERNAME_BAD = /[<>&"'\s\v$%!#?§,;:*~/\\|^=[\]{}()`\p{Cc}]/u;
const PERSON_NAME_BAD = /[<>&"\v\u2028\u2029$%!#?§;*~/\\|^=[\]{}()\p{Cc}]/u;
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const EMAIL_DOMAIN = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*$/u;

function validEmail(v: string): boolean {
  const at = v.lastIndexOf('@');
  if (at < 1 || at === v.length - 1) return false;
  const local = v.slice(0, at);
  const domain = v.slice(at + 1);
  return local.length <= 64 && EMAIL_LOCAL.test(local) && domain.length <= 255 && EMAIL_DOMAIN.test(domain);
}

const num = (v: unknown): number | null => (v === undefined || v === null || v === '' || Number.isNaN(Number(v)) ? null : Number(v));

/** One validator applied to one non-empty value; returns an error or null. */
function runValidator(id: string, cfg: UPValidatorConfig, field: string, value: string, realm: RealmModel): ProfileError | null {
  const err = (errorMessage: string, ...params: unknown[]): ProfileError => ({
    field,
    errorMessage: String(cfg['error-message'] ?? errorMessage),
    params: [field, ...params],
  });
  switch (id) {
    case 'length': {
      const min = num(cfg.min);
      const max = num(cfg.max);
      const len = [...(cfg['trim-disabled'] === true || cfg['trim-disabled'] === 'true' ? value : value.trim())].length;
      if ((min !== null && len < min) || (max !== null && len > max)) {
        const key =
          max === null ? 'error-invalid-length-too-short' : min === null ? 'error-invalid-length-too-long' : 'error-invalid-length';
        return { field, errorMessage: key, params: [field, min, max] };
      }
      return null;
    }
    case 'email':
      return validEmail(value) ? null : { field, errorMessage: 'error-invalid-email', params: [field, value] };
    case 'username-prohibited-characters':
      if (realm.settings.registrationEmailAsUsername === true) return null;
      return USERNAME_BAD.test(value) ? err('error-username-invalid-character') : null;
    case 'person-name-prohibited-characters':
      return PERSON_NAME_BAD.test(value) ? err('error-person-name-invalid-character') : null;
    case 'pattern': {
      let re: RegExp;
      try {
        re = new RegExp(String(cfg.pattern ?? ''), 'u');
      } catch {
        return null;
      }
      return re.test(value) ? null : err('error-pattern-no-match', String(cfg.pattern));
    }
    case 'options': {
      const options = Array.isArray(cfg.options) ? cfg.options.map(String) : [];
      return options.includes(value) ? null : err('error-invalid-value');
    }
    case 'integer':
    case 'double': {
      const n = Number(value);
      const ok = value.trim() !== '' && Number.isFinite(n) && (id === 'double' || Number.isInteger(n));
      if (!ok) return err('error-invalid-number');
      const min = num(cfg.min);
      const max = num(cfg.max);
      if ((min !== null && n < min) || (max !== null && n > max))
        return { field, errorMessage: 'error-number-out-of-range', params: [field, min, max] };
      return null;
    }
    default:
      return null;
  }
}

/**
 * The `multivalued` validator (Keycloak's MultiValueValidator): the number of non-blank values within
 * `min` (0 by default) and `max` (no limit by default); `error-invalid-multivalued-size` with [attribute, min, max].
 */
function multivaluedSizeError(a: UPAttribute, list: string[]): ProfileError | null {
  const cfg = a.validations?.multivalued;
  if (!cfg) return null;
  const min = num(cfg.min) ?? 0;
  const max = num(cfg.max);
  if (list.length >= min && (max === null || list.length <= max)) return null;
  return { field: a.name, errorMessage: String(cfg['error-message'] ?? 'error-invalid-multivalued-size'), params: [a.name, min, max] };
}

const requiredForAdmin = (a: UPAttribute) => {
  const r = a.required;
  if (!r) return false;
  const roles = r.roles ?? [];
  return roles.includes('admin') || (!roles.length && !(r.scopes ?? []).length);
};

/**
 * Validates values against the UP config in the admin context. `fields` limits which attributes
 * are checked (an update leaves untouched values alone). Returns the errors in config order.
 */
export function validateProfile(config: UPConfig, realm: RealmModel, values: ProfileValues, fields?: Set<string>): ProfileError[] {
  const errors: ProfileError[] = [];
  for (const a of config.attributes ?? []) {
    if (fields && !fields.has(a.name)) continue;
    const isRoot = ROOT_USER_ATTRIBUTES.has(a.name);
    const raw = isRoot ? values[a.name as 'username'] : values.attributes[a.name];
    const list = (Array.isArray(raw) ? raw : raw == null ? [] : [raw]).filter((v) => v !== '' && v != null) as string[];
    const size = multivaluedSizeError(a, list);
    if (size) errors.push(size);
    if (!list.length) {
      if (requiredForAdmin(a) && a.name !== 'username')
        errors.push({ field: a.name, errorMessage: 'error-user-attribute-required', params: [a.name] });
      continue;
    }
    for (const [id, cfg] of Object.entries(a.validations ?? {})) {
      if (id === 'multivalued') continue;
      for (const v of list) {
        const e = runValidator(id, cfg ?? {}, a.name, v, realm);
        if (e) {
          errors.push(e);
          break;
        }
      }
    }
  }
  return errors;
}

/** The 400 of Keycloak for validation errors: one error unwrapped, several as `{"errors":[...]}`. */
export function profileErrorResponse(errors: ProfileError[]): HttpError {
  if (errors.length === 1) return new HttpError(400, { ...errors[0] });
  return new HttpError(400, { errors: errors.map((e) => ({ ...e })) });
}
