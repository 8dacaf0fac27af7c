import { randomUUID } from 'node:crypto';
import { deleteClientRows, deleteRealmRows } from '../../core/cascade';
import { hashPassword } from '../../auth/passwords';
import { MASTER, adminRoles, check, requireCap, requireRealmReach } from '../../auth/permissions';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { badRequest, conflict, forbidden, notFound } from '../../core/errors';
import { isUniqueViolation, write } from '../../core/db-errors';
import { invalidate } from '../../loaders/invalidate';
import { checkReservedChars } from '../../core/reserved-chars';
import { getLogger } from '../../logging';
import {
  type RealmRepresentation,
  type RealmSettingsRep,
  type ReducedRealmRep,
  toBriefRealmRepresentation,
  toReducedRealmRepresentation,
} from '../../representations/realm';
import { representationError } from '../../representations/schema';
import { recordAdminEvent, recordAdminEventInCallerRealm } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { noteRealmVersion } from '../../core/shared-cache';
import { validatePolicies, validateProfiles } from '../clients/client-policies';
import { checkEventListeners } from '../events/events';
import { setDefaultGroupsByPath } from '../groups/group-paths';
import { realmRepresentation } from './realm-representation';
import { settingsFrom } from './realm-settings';
import { prepareRealmKeys, setupRealm } from './realm-setup';
import { parsePasswordPolicy } from '../users/password-policy';

const log = getLogger('idserver.services.realms');

/** Resolves a realm by name for a request: 404 `Realm not found.` (checked before permissions). */
export async function resolveRealm(ctx: RequestContext, name: string): Promise<RealmModel> {
  const realm = await ctx.loaders.realmByName.load(name);
  if (!realm) throw notFound('Realm not found.');
  requireRealmReach(ctx, realm);
  noteRealmVersion(ctx, realm);
  return realm;
}

/** GET /admin/realms/{realm}: full rep for realm viewers, reduced rep for other admins, else 403. */
export async function getRealm(ctx: RequestContext, realm: RealmModel): Promise<RealmRepresentation | ReducedRealmRep> {
  if (await check(ctx, realm, 'viewRealm')) return realmRepresentation(ctx, realm);
  if (!(await check(ctx, realm, 'anyAdmin'))) throw forbidden();
  return toReducedRealmRepresentation(realm, await check(ctx, realm, 'viewUsers'));
}

/** GET /admin/realms: realms the caller may see (full, brief, or name only); 403 when none. */
export async function listRealms(
  ctx: RequestContext,
  opts: { brief?: boolean } = {},
): Promise<Array<RealmRepresentation | ReducedRealmRep>> {
  const realms = await ctx.db.models.Realm.findAll({ order: [['createdAt', 'ASC']] });
  const out: Array<RealmRepresentation | ReducedRealmRep> = [];
  for (const realm of realms) {
    if (ctx.actor && ctx.actor.realmName !== MASTER && ctx.actor.realmId !== realm.id) continue;
    if (await check(ctx, realm, 'viewRealm'))
      out.push(opts.brief ? toBriefRealmRepresentation(realm) : await realmRepresentation(ctx, realm));
    else if ((await adminRoles(ctx, realm)).size) out.push({ realm: realm.name });
  }
  if (!out.length) throw forbidden();
  return out;
}

/**
 * PUT /admin/realms/{realm}: merges top-level settings; renames; nested collections are ignored. The
 * body is read as Keycloak's Jackson reads it: an unknown field or a value of the wrong type is a 400
 * and nothing is stored.
 */
export async function updateRealm(ctx: RequestContext, realm: RealmModel, rep: RealmRepresentation): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  const settings = settingsFrom(rep, (problem) => representationError(problem));
  checkEventListeners(rep.eventsListeners);
  const newName = typeof rep.realm === 'string' && rep.realm !== realm.name ? rep.realm : undefined;
  if (newName !== undefined) {
    if (realm.name === MASTER) throw badRequest("Can't rename master realm");
    if (!newName.trim()) throw badRequest('Realm name cannot be empty');
    checkReservedChars(newName);
  }
  if (settings.passwordPolicy !== undefined) parsePasswordPolicy(settings.passwordPolicy);
  const login = settings.accessCodeLifespanLogin;
  const action = settings.accessCodeLifespanUserAction;
  if (login !== undefined && action !== undefined && (Number(login) < 1 || Number(action) < 1)) {
    throw badRequest('AccessCodeLifespanLogin or AccessCodeLifespanUserAction cannot be 0');
  }
  const oldName = realm.name;
  await write(ctx, { unique: () => conflict('Realm with same name exists') }, async () => {
    const fresh = await ctx.db.models.Realm.findByPk(realm.id);
    if (!fresh) throw notFound('Realm not found.');
    const stored = fresh.settings as RealmSettingsRep;
    const merged: RealmSettingsRep = { ...stored, ...settings };
    // Client profiles and policies in the body replace the stored ones, validated as their own endpoints do.
    if (settings.clientProfiles != null) merged.clientProfiles = { profiles: validateProfiles(settings.clientProfiles) };
    if (settings.clientPolicies != null) {
      const profiles = merged.clientProfiles?.profiles ?? [];
      merged.clientPolicies = { policies: validatePolicies(settings.clientPolicies, profiles) };
    }
    if (settings.attributes && typeof settings.attributes === 'object') merged.attributes = { ...settings.attributes };
    if (settings.smtpServer && settings.smtpServer.password === '**********' && merged.smtpServer) {
      merged.smtpServer.password = stored.smtpServer?.password;
    }
    fresh.settings = merged;
    if (rep.enabled !== undefined && rep.enabled !== null) fresh.enabled = rep.enabled === true || rep.enabled === 'true';
    if (newName) {
      fresh.name = newName;
      const master = await ctx.db.models.Realm.findOne({ where: { name: MASTER } });
      if (master) {
        await ctx.db.models.Client.update(
          { clientId: `${newName}-realm`, name: `${newName} Realm` },
          { where: { realmId: master.id, clientId: `${oldName}-realm` } },
        );
      }
    }
    await fresh.save();
    if (Array.isArray(rep.defaultGroups)) {
      await setDefaultGroupsByPath(ctx, fresh, rep.defaultGroups as string[]);
    }
    await recordAdminEvent(ctx, fresh, { operationType: 'UPDATE', resourceType: 'REALM', representation: rep });
  });
  invalidate.realm(ctx.loaders, { id: realm.id, name: oldName }, newName);
}

/** DELETE /admin/realms/{realm}: removes the realm, all its rows and its `<realm>-realm` client in master. */
export async function deleteRealm(ctx: RequestContext, realm: RealmModel): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  if (realm.name === MASTER) throw badRequest("Can't remove master realm");
  await ctx.db.transaction(async () => {
    await deleteRealmRows(ctx.db, realm.id);
    const master = await ctx.db.models.Realm.findOne({ where: { name: MASTER } });
    const adminClient = master && (await ctx.db.models.Client.findOne({ where: { realmId: master.id, clientId: `${realm.name}-realm` } }));
    if (adminClient) await deleteClientRows(ctx.db, adminClient.id);
    await ctx.db.models.Realm.destroy({ where: { id: realm.id } });
    await recordAdminEventInCallerRealm(ctx, { operationType: 'DELETE', resourceType: 'REALM', resourcePath: realm.name });
  });
  invalidate.realm(ctx.loaders, realm);
  log.info(`Realm ${realm.name} deleted`);
}

export interface BootstrapOptions {
  mode: 'start' | 'start-dev';
  username?: string;
  password?: string;
}

/**
 * On an empty database: creates the master realm and the bootstrap admin (master realm role
 * `admin`, temporary-admin attribute). `start` refuses to create an admin without credentials.
 */
export async function bootstrap(db: Db, opts: BootstrapOptions): Promise<{ createdMaster: boolean; createdAdmin?: string }> {
  try {
    return await bootstrapOnce(db, opts);
  } catch (e) {
    // Another node starting at the same moment created the master realm or its admin first (the
    // unique index said so): what it made is there now, so looking again finds nothing to do.
    if (!isUniqueViolation(e)) throw e;
    log.info('Another node bootstrapped the master realm first');
    return bootstrapOnce(db, opts);
  }
}

async function bootstrapOnce(db: Db, opts: BootstrapOptions): Promise<{ createdMaster: boolean; createdAdmin?: string }> {
  const noCredentials = !opts.username || !opts.password;
  const missingAdmin = () =>
    new Error('No admin user in the master realm: set IDSERVER_BOOTSTRAP_ADMIN_USERNAME and IDSERVER_BOOTSTRAP_ADMIN_PASSWORD');
  const existing = await db.models.Realm.findOne({ where: { name: MASTER } });
  // A start that cannot create the admin fails before it writes anything (no master realm without one).
  if (!existing && noCredentials && opts.mode === 'start') throw missingAdmin();
  const keys = existing ? undefined : await prepareRealmKeys(MASTER);
  const stored = noCredentials ? undefined : await hashPassword(opts.password as string);
  // The master realm and its admin in one transaction: a failure leaves the database as it was.
  return db.transaction(async () => {
    const master = existing ?? (await setupRealm(db, { name: MASTER, enabled: true, settings: {}, keys: keys ?? [] }));
    const createdMaster = !existing;
    if (createdMaster) log.info('Created the master realm');
    const adminRole = await db.models.Role.findOne({ where: { containerId: master.id, clientId: null, name: 'admin' } });
    const hasAdmin = adminRole && (await db.models.UserRoleMapping.findOne({ where: { roleId: adminRole.id } }));
    if (!adminRole || hasAdmin) return { createdMaster };
    if (!stored) {
      if (opts.mode === 'start') throw missingAdmin();
      return { createdMaster };
    }
    const username = (opts.username as string).toLowerCase();
    const id = randomUUID();
    await db.models.User.create({
      id,
      realmId: master.id,
      username,
      email: null,
      emailConstraint: id,
      enabled: true,
      emailVerified: false,
      createdTimestamp: Date.now(),
      notBefore: 0,
    });
    await db.models.UserAttribute.create({ id: randomUUID(), userId: id, name: 'is_temporary_admin', value: 'true' });
    await db.models.Credential.create({
      id: randomUUID(),
      userId: id,
      type: 'password',
      userLabel: null,
      ...stored,
      priority: 10,
      createdDate: Date.now(),
    });
    const defaultRoleId = master.settings.defaultRoleId as string;
    await db.models.UserRoleMapping.bulkCreate([
      { userId: id, roleId: adminRole.id },
      { userId: id, roleId: defaultRoleId },
    ]);
    log.info(`Created temporary admin user with username ${username}`);
    return { createdMaster, createdAdmin: username };
  });
}
