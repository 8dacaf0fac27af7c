import { Op } from 'sequelize';
import { hashPassword } from '../../auth/passwords';
import { requireManageUser, requireViewUser } from '../../auth/fgap';
import type { RealmModel } from '../../db/models/realm';
import type { CredentialModel, UserModel } from '../../db/models/user';
import { cannotParse, errorA, errorB, errorC, notFound } from '../../core/errors';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { groupedBy } from '../../loaders/util';
import { batchLoad } from '../../loaders/batch';
import { invalidate } from '../../loaders/invalidate';
import { type CredentialRep, toCredentialRepresentation } from '../../representations/credential';
import { storeCredentialRows } from './password-history';
import { checkPasswordPolicy, hashSettings } from './password-policy';
import { orderedUuid } from './users-input';
import {
  DirectoryReadOnly,
  DirectoryWriteFailed,
  federatedAccountUpdate,
  passwordTarget,
  writeTargetPassword,
} from '../user-storage/edit-modes';
import { refuseTransientWrite } from '../user-storage/transient-users';

/**
 * Credentials of a user (reference §4.7–4.8): metadata listing (never secrets), removal, priority
 * order, labels, disabling credential types, and the admin password reset with the realm's policy.
 */
/** Password history rows are internal: never listed, moved or removed through the API. */
const HISTORY = 'password-history';

async function stored(ctx: RequestContext, userId: string): Promise<CredentialModel[]> {
  return ctx.db.models.Credential.findAll({
    where: { userId, type: { [Op.ne]: HISTORY } },
    order: [
      ['priority', 'ASC'],
      ['createdDate', 'ASC'],
    ],
  });
}

/** The stored credentials of many users (no password history), each list by priority: one statement. */
export async function credentialsOfUsers(ctx: RequestContext, userIds: readonly string[]): Promise<CredentialModel[][]> {
  const rows = await ctx.db.models.Credential.findAll({
    where: { userId: { [Op.in]: [...new Set(userIds)] }, type: { [Op.ne]: HISTORY } },
    order: [
      ['priority', 'ASC'],
      ['createdDate', 'ASC'],
    ],
  });
  return groupedBy(rows, (r) => r.userId, userIds);
}

/**
 * GET /admin/realms/{realm}/users/{id}/credentials: metadata of the user's credentials by priority
 * (view-users). The users of one request tick are read together (GraphQL `User.credentials` of a list).
 */
export async function listCredentials(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<CredentialRep[]> {
  await requireViewUser(ctx, realm, user.id);
  const rows = await batchLoad(ctx.memo, 'credentials', (ids: readonly string[]) => credentialsOfUsers(ctx, ids), user.id);
  return rows.map(toCredentialRepresentation);
}

async function credentialOf(ctx: RequestContext, userId: string, credentialId: string): Promise<CredentialModel> {
  const c = await ctx.db.models.Credential.findOne({ where: { id: credentialId, userId } });
  if (!c || c.type === HISTORY) throw notFound('Credential not found');
  return c;
}

/** DELETE /admin/realms/{realm}/users/{id}/credentials/{credentialId} (manage-users); admin event ACTION. */
export async function deleteCredential(ctx: RequestContext, realm: RealmModel, user: UserModel, credentialId: string): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  await ctx.db.transaction(async () => {
    const c = await credentialOf(ctx, user.id, credentialId);
    await c.destroy();
    if (c.type === 'password') await ctx.db.models.Credential.destroy({ where: { userId: user.id, type: HISTORY } });
    await recordAdminEvent(ctx, realm, {
      operationType: 'ACTION',
      resourceType: 'USER',
      resourcePath: `users/${user.id}/credentials/${credentialId}`,
    });
  });
  invalidate.user(ctx.loaders, user.id);
}

/**
 * POST .../credentials/{credentialId}/moveToFirst and .../moveAfter/{previousId} (manage-users):
 * re-numbers priorities 10, 20, ... in the new order. An unknown previous id is a no-op.
 */
export async function moveCredential(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  credentialId: string,
  previousId: string | null,
): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  await ctx.db.transaction(async () => {
    const list = await stored(ctx, user.id);
    const moving = list.find((c) => c.id === credentialId);
    if (!moving) throw notFound('Credential not found');
    const rest = list.filter((c) => c.id !== credentialId);
    let at = 0;
    if (previousId) {
      const prev = rest.findIndex((c) => c.id === previousId);
      if (prev < 0) return;
      at = prev + 1;
    }
    rest.splice(at, 0, moving);
    for (const [i, c] of rest.entries()) {
      const priority = (i + 1) * 10;
      if (c.priority !== priority) {
        c.priority = priority;
        await c.save();
      }
    }
  });
}

/** PUT .../credentials/{credentialId}/userLabel (manage-users): body is the plain-text label. */
export async function setCredentialLabel(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  credentialId: string,
  label: string,
): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  const c = await credentialOf(ctx, user.id, credentialId);
  const text = label.trim();
  if (!text) throw errorB(400, 'missingCredentialLabel', 'Credential label must not be empty');
  if (text.length > 255) throw errorB(400, 'invalidCredentialLabel', 'Credential label must not be longer than 255 characters');
  await ctx.db.transaction(async () => {
    await ctx.db.models.Credential.update({ userLabel: text }, { where: { id: c.id } });
  });
}

/** PUT /admin/realms/{realm}/users/{id}/disable-credential-types (manage-users): removes credentials of those types (not passwords). */
export async function disableCredentialTypes(ctx: RequestContext, realm: RealmModel, user: UserModel, types: unknown): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  if (types === undefined || types === null) return;
  if (!Array.isArray(types) || types.some((t) => typeof t === 'object' && t !== null)) throw cannotParse('mapping');
  const list = types.map(String).filter((t) => t !== 'password' && t !== HISTORY);
  if (!list.length) return;
  await ctx.db.transaction(async () => {
    await ctx.db.models.Credential.destroy({ where: { userId: user.id, type: { [Op.in]: list } } });
  });
  invalidate.user(ctx.loaders, user.id);
}

/** GET /admin/realms/{realm}/users/{id}/configured-user-storage-credential-types: `[]` for local users, `["password"]` for LDAP ones (view-users). */
export async function configuredUserStorageCredentialTypes(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<string[]> {
  await requireViewUser(ctx, realm, user.id);
  return user.federationLink ? ['password'] : [];
}

/**
 * PUT /admin/realms/{realm}/users/{id}/reset-password (manage-users): the new password is `value`
 * (or `rawPassword`); checked against the realm's policy, hashed as the policy says, the old hash
 * kept as history; `temporary` adds UPDATE_PASSWORD, otherwise removes it. Admin event ACTION.
 */
export async function resetPassword(ctx: RequestContext, realm: RealmModel, user: UserModel, body: CredentialRep | null): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  const rep = body && typeof body === 'object' && !Array.isArray(body) ? body : null;
  const raw = rep?.value ?? rep?.rawPassword;
  if (raw === undefined || raw === null) throw errorC(400, 'No password provided');
  const password = String(raw);
  if (!password.trim()) throw errorC(400, 'Empty password not allowed');
  // WRITABLE LDAP users get the password in the directory (nothing stored here); READ_ONLY ones are refused
  // before the policy is looked at, as Keycloak's credential manager asks the provider first.
  const target = await passwordTarget(ctx.db, realm, user).catch((e: unknown) => {
    throw e instanceof DirectoryReadOnly ? errorA(400, "Can't reset password as account is read only") : e;
  });
  if (target.kind === 'local' || target.checkPolicy) {
    const violation = await checkPasswordPolicy(ctx.db, realm, { userId: user.id, username: user.username, email: user.email }, password);
    if (violation) throw violation;
  }
  const flag: unknown = rep?.temporary;
  const temporary = flag === true || flag === 'true';
  // A transient federated user (ADR 46) has its password in the directory only, and no required actions.
  if (temporary) refuseTransientWrite(user, 'required action UPDATE_PASSWORD');
  const inDirectory = target.kind === 'directory';
  if (inDirectory) {
    await writeTargetPassword(ctx.log, target, user, password).catch((e: unknown) => {
      throw e instanceof DirectoryWriteFailed ? errorA(400, e.message) : e;
    });
    // A temporary password asks for a new one: Active Directory keeps that as pwdLastSet 0 (MSAD mapper).
    if (temporary) await federatedAccountUpdate(ctx, realm, user, { updatePassword: 'added' });
  } else refuseTransientWrite(user, 'credential password');
  const { algorithm, iterations } = hashSettings(realm);
  const secret = inDirectory ? undefined : await hashPassword(password, algorithm, iterations);
  const m = ctx.db.models;
  await ctx.db.transaction(async () => {
    const row = secret && { id: orderedUuid(), type: 'password', userLabel: null, priority: 10, createdDate: Date.now(), ...secret };
    if (row) await storeCredentialRows(ctx.db, realm, user.id, [row]);
    if (temporary) {
      await m.UserRequiredAction.bulkCreate([{ userId: user.id, requiredAction: 'UPDATE_PASSWORD' }], { ignoreDuplicates: true });
    } else {
      await m.UserRequiredAction.destroy({ where: { userId: user.id, requiredAction: 'UPDATE_PASSWORD' } });
    }
    await recordAdminEvent(ctx, realm, { operationType: 'ACTION', resourceType: 'USER', resourcePath: `users/${user.id}/reset-password` });
  });
  invalidate.user(ctx.loaders, user.id);
}
