import { randomUUID } from 'node:crypto';
import { Transaction } from 'sequelize';
import { canManageUsers, canViewUsers, requireManageUser, requireViewUser } from '../../auth/fgap';
import { forbidden } from '../../core/errors';
import { requireCap } from '../../auth/permissions';
import type { Db } from '../../db';
import type { LoginFailureModel } from '../../db/models/session';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { recordAdminEvent } from '../../core/admin-events';
import { clock } from '../../core/clock';
import type { RequestContext } from '../../core/context';
import { recordEvent } from '../../core/user-events';
import { type BruteForceStatus, toBruteForceStatus } from '../../representations/session';
import { isStorageId, resolveTransientUser } from '../user-storage/transient-users';

/**
 * Brute-force detection (reference §8): one `login_failure` row per user, updated under a row lock
 * (SELECT ... FOR UPDATE; SQLite serialises writers) so concurrent failed logins are all counted.
 * Temporary lockouts set `failedLoginNotBefore`; permanent lockout disables the user and marks it
 * with the attribute `disabledReason=permanentLockout`.
 */
const log = getLogger('idserver.services.brute-force');

export const DISABLED_REASON = 'disabledReason';
export const PERMANENT_LOCKOUT = 'permanentLockout';

const flag = (v: unknown) => v === true || v === 'true';
const num = (realm: RealmModel, key: string, dflt: number) => {
  const v = Number(realm.settings[key] ?? dflt);
  return Number.isFinite(v) ? v : dflt;
};

interface Settings {
  permanentLockout: boolean;
  maxTemporaryLockouts: number;
  linear: boolean;
  failureFactor: number;
  waitIncrementSeconds: number;
  maxFailureWaitSeconds: number;
  quickLoginCheckMilliSeconds: number;
  minimumQuickLoginWaitSeconds: number;
  maxDeltaTimeSeconds: number;
}

function settingsOf(realm: RealmModel): Settings {
  return {
    permanentLockout: flag(realm.settings.permanentLockout),
    maxTemporaryLockouts: num(realm, 'maxTemporaryLockouts', 0),
    linear: String(realm.settings.bruteForceStrategy ?? 'MULTIPLE').toUpperCase() === 'LINEAR',
    failureFactor: num(realm, 'failureFactor', 30),
    waitIncrementSeconds: num(realm, 'waitIncrementSeconds', 60),
    maxFailureWaitSeconds: num(realm, 'maxFailureWaitSeconds', 900),
    quickLoginCheckMilliSeconds: num(realm, 'quickLoginCheckMilliSeconds', 1000),
    minimumQuickLoginWaitSeconds: num(realm, 'minimumQuickLoginWaitSeconds', 60),
    maxDeltaTimeSeconds: num(realm, 'maxDeltaTimeSeconds', 43200),
  };
}

/** True when the realm has brute-force protection on. */
export const bruteForceProtected = (realm: RealmModel) => flag(realm.settings.bruteForceProtected);

async function permanentlyLocked(db: Db, user: UserModel): Promise<boolean> {
  if (user.enabled) return false;
  return (await db.models.UserAttribute.count({ where: { userId: user.id, name: DISABLED_REASON, value: PERMANENT_LOCKOUT } })) > 0;
}

/** Lockout state of a user at login: temporary, permanent (disabled by brute force) or none. */
export async function lockoutOf(db: Db, realm: RealmModel, user: UserModel): Promise<'temporary' | 'permanent' | null> {
  if (!bruteForceProtected(realm)) return null;
  if (await permanentlyLocked(db, user)) return 'permanent';
  const row = await db.models.LoginFailure.findByPk(user.id);
  return row && Math.floor(clock.now() / 1000) < Number(row.failedLoginNotBefore) ? 'temporary' : null;
}

/**
 * The user's failure record, locked for this transaction. A missing row is created with INSERT IGNORE
 * (`ignoreDuplicates`), so two first failures racing to create it never raise a unique violation: the
 * loser's insert is a no-op and it then waits on the winner's lock. On MySQL the two gap locks of that
 * race may deadlock instead; the outermost `db.transaction` runs the loser again (src/db/index.ts).
 */
async function lockedRow(db: Db, realm: RealmModel, userId: string): Promise<LoginFailureModel> {
  const lock = Transaction.LOCK.UPDATE;
  const m = db.models.LoginFailure;
  let row = await m.findByPk(userId, { lock });
  if (!row) {
    await m.bulkCreate([{ userId, realmId: realm.id }], { ignoreDuplicates: true });
    row = await m.findByPk(userId, { lock });
  }
  if (!row) throw new Error('login failure row vanished');
  return row;
}

/** Applies one failed login to the record (reference §8.3) and returns the outcome. */
function applyFailure(s: Settings, row: LoginFailureModel, ip: string | undefined, nowMs: number) {
  const last = Number(row.lastFailure);
  const delta = last > 0 ? nowMs - last : 0;
  const permanentOnly = s.permanentLockout && s.maxTemporaryLockouts === 0;
  if (last > 0 && !permanentOnly && delta > s.maxDeltaTimeSeconds * 1000) {
    row.set({ numFailures: 0, numTemporaryLockouts: 0, failedLoginNotBefore: 0 });
  }
  row.set({ lastIpFailure: ip ?? null, lastFailure: nowMs, numFailures: row.numFailures + 1 });
  let wait = 0;
  let quick = false;
  let temporary = false;
  if (!permanentOnly && s.failureFactor > 0) {
    wait = s.linear
      ? s.waitIncrementSeconds * (1 + row.numFailures - s.failureFactor)
      : s.waitIncrementSeconds * Math.floor(row.numFailures / s.failureFactor);
    if (wait <= 0 && last > 0 && delta < s.quickLoginCheckMilliSeconds) {
      wait = s.minimumQuickLoginWaitSeconds;
      quick = true;
    }
  }
  if (wait > 0) {
    wait = Math.min(wait, s.maxFailureWaitSeconds);
    if (!quick) row.numTemporaryLockouts += 1;
    if (quick || !s.permanentLockout || row.numTemporaryLockouts <= s.maxTemporaryLockouts) {
      row.failedLoginNotBefore = Math.floor(nowMs / 1000) + wait;
      temporary = true;
    }
  }
  const permanent =
    s.permanentLockout &&
    (row.numTemporaryLockouts > s.maxTemporaryLockouts || (s.maxTemporaryLockouts === 0 && row.numFailures >= s.failureFactor));
  return { wait, quick, temporary, permanent };
}

/** Records a failed password check of a known user (token endpoint); locks the user out as configured. */
export async function recordLoginFailure(
  db: Db,
  realm: RealmModel,
  user: UserModel,
  ip: string | undefined,
  clientId?: string,
): Promise<void> {
  if (!bruteForceProtected(realm)) return;
  const s = settingsOf(realm);
  // One transaction, retried as a whole by db.transaction when it loses a lock race (never a partial count).
  const out = await db.transaction(async () => {
    const row = await lockedRow(db, realm, user.id);
    const o = applyFailure(s, row, ip, clock.now());
    await row.save();
    if (o.permanent) {
      await db.models.User.update({ enabled: false }, { where: { id: user.id } });
      await db.models.UserAttribute.destroy({ where: { userId: user.id, name: DISABLED_REASON } });
      await db.models.UserAttribute.create({ id: randomUUID(), userId: user.id, name: DISABLED_REASON, value: PERMANENT_LOCKOUT });
    }
    return { ...o, numFailures: row.numFailures, notBefore: row.failedLoginNotBefore };
  });
  const base = { clientId, userId: user.id, ipAddress: ip };
  if (out.temporary) {
    await recordEvent(db, realm, {
      ...base,
      type: 'USER_DISABLED_BY_TEMPORARY_LOCKOUT',
      details: {
        reason: out.quick ? 'quick_login_failure' : 'brute_force_attack',
        num_failures: String(out.numFailures),
        not_before: String(out.notBefore),
      },
    });
  }
  if (out.permanent) {
    user.enabled = false;
    await recordEvent(db, realm, {
      ...base,
      type: 'USER_DISABLED_BY_PERMANENT_LOCKOUT',
      details: { reason: 'brute_force_attack', num_failures: String(out.numFailures) },
    });
  }
}

/** A successful login clears the user's failure record. */
export async function recordLoginSuccess(db: Db, realm: RealmModel, user: UserModel): Promise<void> {
  if (!bruteForceProtected(realm)) return;
  await db.models.LoginFailure.destroy({ where: { userId: user.id } });
}

/**
 * The access AttackDetectionResource asks for one user's record: view (manage) of that user when it
 * exists (fine-grained permissions included), users view (manage) realm-wide for an unknown id.
 */
async function requireUserAccess(
  ctx: RequestContext,
  realm: RealmModel,
  userId: string,
  need: 'view' | 'manage',
): Promise<UserModel | null> {
  // Through the loader: a GraphQL page of users asks for all their records in one statement.
  const found = isStorageId(userId) ? await resolveTransientUser(ctx, realm, userId) : await ctx.loaders.userById.load(userId);
  const user = found && found.realmId === realm.id ? found : null;
  if (user) await (need === 'view' ? requireViewUser : requireManageUser)(ctx, realm, user.id);
  else if (!(await (need === 'view' ? canViewUsers : canManageUsers)(ctx, realm))) throw forbidden();
  return user;
}

/** GET /{realm}/attack-detection/brute-force/users/{userId}: the user's status map (zero record for unknown ids). */
export async function bruteForceStatus(ctx: RequestContext, realm: RealmModel, userId: string): Promise<BruteForceStatus> {
  const user = await requireUserAccess(ctx, realm, userId, 'view');
  if (!bruteForceProtected(realm) || !user) return toBruteForceStatus(null, 0, false);
  const row = await ctx.db.models.LoginFailure.findByPk(user.id);
  return toBruteForceStatus(row, Math.floor(clock.now() / 1000), await permanentlyLocked(ctx.db, user));
}

/** DELETE /{realm}/attack-detection/brute-force/users/{userId}: clears the user's login failures. */
export async function clearUserLoginFailures(ctx: RequestContext, realm: RealmModel, userId: string): Promise<void> {
  await requireUserAccess(ctx, realm, userId, 'manage');
  await ctx.db.transaction(async () => {
    const n = await ctx.db.models.LoginFailure.destroy({ where: { userId, realmId: realm.id } });
    if (n)
      await recordAdminEvent(ctx, realm, {
        operationType: 'DELETE',
        resourceType: 'USER_LOGIN_FAILURE',
        resourcePath: `attack-detection/brute-force/users/${userId}`,
      });
  });
}

/** DELETE /{realm}/attack-detection/brute-force/users: clears the login failures of all users of the realm. */
export async function clearAllLoginFailures(ctx: RequestContext, realm: RealmModel): Promise<void> {
  await requireCap(ctx, realm, 'manageUsers');
  await ctx.db.transaction(async () => {
    const n = await ctx.db.models.LoginFailure.destroy({ where: { realmId: realm.id } });
    log.debug(`Cleared ${n} login failure records of realm ${realm.name}`);
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'USER_LOGIN_FAILURE',
      resourcePath: 'attack-detection/brute-force/users',
    });
  });
}

/**
 * PUT /users/{id} with `enabled:true` (reference §4.5): clears the failure record and the
 * permanent-lockout marker. Called inside the update's transaction.
 */
export async function releaseUserOnEnable(ctx: RequestContext, realm: RealmModel, userId: string): Promise<void> {
  const m = ctx.db.models;
  const rows = await m.LoginFailure.destroy({ where: { userId } });
  const marks = await m.UserAttribute.destroy({ where: { userId, name: DISABLED_REASON, value: PERMANENT_LOCKOUT } });
  if (rows || marks)
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'USER_LOGIN_FAILURE', resourcePath: `users/${userId}` });
}
