import { requireViewUser } from '../../auth/fgap';
import { requireCap } from '../../auth/permissions';
import type { RealmModel } from '../../db/models/realm';
import { ROOT_USER_ATTRIBUTES } from '../../representations/user';
import type { RequestContext } from '../../core/context';
import type { UserModel } from '../../db/models/user';
import { TEMPORARY_ADMIN_ATTRIBUTE, userProfileConfig } from './user-profile';
import type { UPAttribute } from '../../representations/user-profile';

/**
 * The user profile as the admin context sees it (reference §4.15–4.16): the metadata the admin
 * console renders forms from, and the unmanaged attributes of a user.
 */
const adminCanEdit = (a: UPAttribute) => !a.permissions || (a.permissions.edit ?? []).includes('admin');

const requiredForAdmin = (a: UPAttribute) => {
  if (a.name === 'username') return true;
  const r = a.required;
  if (!r) return false;
  const roles = r.roles ?? [];
  return roles.includes('admin') || (!roles.length && !(r.scopes ?? []).length);
};

/** Keycloak's UserProfileAttributeMetadata (admin context), in Keycloak's field order. */
export interface UserProfileAttributeMetadata {
  name: string;
  displayName: string;
  required: boolean;
  readOnly: boolean;
  annotations?: UPAttribute['annotations'];
  validators?: UPAttribute['validations'];
  group?: string;
  multivalued?: boolean;
}

/** Keycloak's UserProfileAttributeGroupMetadata. */
export interface UserProfileGroupMetadata {
  name: unknown;
  displayHeader?: unknown;
  displayDescription?: unknown;
  annotations?: unknown;
}

/** Keycloak's UserProfileMetadata: the attributes and attribute groups the admin console renders forms from. */
export interface UserProfileMetadata {
  attributes: UserProfileAttributeMetadata[];
  groups: UserProfileGroupMetadata[];
}

/** GET /admin/realms/{realm}/users/profile/metadata (any admin role): attributes and groups for the admin context. */
export async function getUserProfileMetadata(ctx: RequestContext, realm: RealmModel): Promise<UserProfileMetadata> {
  await requireCap(ctx, realm, 'anyAdmin');
  const config = await userProfileConfig(ctx, realm);
  const attributes = (config.attributes ?? [])
    .filter((a) => !a.permissions || [...(a.permissions.view ?? []), ...(a.permissions.edit ?? [])].includes('admin'))
    .map((a) => {
      const out: UserProfileAttributeMetadata = {
        name: a.name,
        displayName: a.displayName ?? a.name,
        required: requiredForAdmin(a),
        readOnly: !adminCanEdit(a),
      };
      if (a.annotations && Object.keys(a.annotations).length) out.annotations = a.annotations;
      out.validators = a.validations ?? {};
      if (a.group) out.group = a.group;
      out.multivalued = a.multivalued === true;
      return out;
    });
  const groups = (config.groups ?? []).map((g) => {
    const out: UserProfileGroupMetadata = { name: g.name };
    if (g.displayHeader !== undefined) out.displayHeader = g.displayHeader;
    if (g.displayDescription !== undefined) out.displayDescription = g.displayDescription;
    if (g.annotations && Object.keys(g.annotations as object).length) out.annotations = g.annotations;
    return out;
  });
  return { attributes, groups };
}

/**
 * GET /admin/realms/{realm}/users/{id}/unmanagedAttributes (view-users): stored attributes the UP
 * config does not declare (non-blank values); `{}` while `unmanagedAttributePolicy` is unset.
 */
export async function getUnmanagedAttributes(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<Record<string, string[]>> {
  await requireViewUser(ctx, realm, user.id);
  const config = await userProfileConfig(ctx, realm);
  if (!config.unmanagedAttributePolicy) return {};
  const managed = new Set((config.attributes ?? []).map((a) => a.name));
  const stored = await ctx.loaders.attributesByUser.load(user.id);
  const out: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(stored)) {
    if (managed.has(name) || ROOT_USER_ATTRIBUTES.has(name) || name === TEMPORARY_ADMIN_ATTRIBUTE) continue;
    const kept = values.filter((v) => v != null && v.trim() !== '');
    if (kept.length) out[name] = kept;
  }
  return out;
}
