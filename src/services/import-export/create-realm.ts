import { Op } from 'sequelize';
import { MASTER, masterRealmRoles } from '../../auth/permissions';
import { recordAdminEventInCallerRealm } from '../../core/admin-events';
import { type RequestContext, systemContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { badRequest, conflict, errorA, forbidden } from '../../core/errors';
import { checkReservedChars } from '../../core/reserved-chars';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { ALL_REALM_ROLES } from '../../keycloak/realm-defaults';
import { invalidate } from '../../loaders/invalidate';
import { getLogger } from '../../logging';
import type { RealmRepresentation } from '../../representations/realm';
import { checkEventListeners } from '../events/events';
import { hashPasswordsAhead } from '../users/users-input';
import { readRealmRepresentation, settingsFrom } from '../realms/realm-settings';
import { prepareRealmKeys, setupRealm } from '../realms/realm-setup';
import { importRealmContent } from './realm-import';
import { importPlan } from './realm-import-clients';

const log = getLogger('idserver.services.realms');

const unreadable = () => errorA(400, 'unable to read contents from stream');

/**
 * POST /admin/realms: creates a realm with Keycloak's defaults and imports the rest of the
 * representation (a realm import). Returns the new realm.
 */
export async function createRealm(ctx: RequestContext, rep: unknown): Promise<RealmModel> {
  if (ctx.actor && (ctx.actor.realmName !== MASTER || !(await masterRealmRoles(ctx)).has('create-realm'))) throw forbidden();
  if (!rep || typeof rep !== 'object' || Array.isArray(rep)) throw unreadable();
  const r = rep as RealmRepresentation;
  // Read as Jackson reads it first: `"realm": 123` is the name "123", a wrong type a 400.
  readRealmRepresentation(r, unreadable);
  const name = typeof r.realm === 'string' ? r.realm : '';
  if (!name.trim()) throw badRequest('Realm name cannot be empty');
  for (const v of [name, typeof r.id === 'string' ? r.id : '']) checkReservedChars(v);
  const settings = settingsFrom(r, unreadable);
  checkEventListeners(r.eventsListeners);
  const enabled = r.enabled === true || r.enabled === 'true';
  return oneCreatePerName(ctx.db, name, () => insertRealm(ctx, r, name, enabled, settings));
}

/** Creates of a realm name in flight on this node, per database. */
const inFlight = new WeakMap<Db, Map<string, Promise<unknown>>>();

/**
 * Runs the creates of one realm name on this node one after the other: a concurrent duplicate waits
 * for the first, then fails at the cheap existence check instead of generating keys and building a
 * whole realm only for the unique index to refuse it. Across nodes the unique index still decides.
 */
async function oneCreatePerName<T>(db: Db, name: string, create: () => Promise<T>): Promise<T> {
  let running = inFlight.get(db);
  if (!running) {
    running = new Map();
    inFlight.set(db, running);
  }
  for (let ahead = running.get(name); ahead; ahead = running.get(name)) await ahead.catch(() => undefined);
  const mine = create();
  running.set(name, mine);
  try {
    return await mine;
  } finally {
    if (running.get(name) === mine) running.delete(name);
  }
}

async function insertRealm(
  ctx: RequestContext,
  r: RealmRepresentation,
  name: string,
  enabled: boolean,
  settings: ReturnType<typeof settingsFrom>,
): Promise<RealmModel> {
  if (await ctx.db.models.Realm.findOne({ where: { name } })) throw conflict(`Realm ${name} already exists`);
  const plan = importPlan(r);
  // Key providers in the representation are the realm's keys; otherwise the generated defaults.
  const keys = plan.hasKeyProviders ? [] : await prepareRealmKeys(name);
  // Plain passwords are hashed now, not inside the transaction (CPU-heavy: the write lock would wait for it).
  await hashPasswordsAhead({ settings: settings as RealmModel['settings'] }, Array.isArray(r.users) ? r.users : []);
  const realm = await write(ctx, { unique: () => conflict(`Realm ${name} already exists`) }, async () => {
    const id = typeof r.id === 'string' && r.id ? r.id : undefined;
    const created = await setupRealm(ctx.db, { id, name, enabled, settings, keys, skip: plan.skip });
    await importRealmContent(systemContext(ctx.db, ctx.baseUrl), created, r);
    if (ctx.actor && !(await masterRealmRoles(ctx)).has('admin'))
      await grantCreatorRoles(ctx.db, created, ctx.actor.userId, ctx.actor.realmId);
    await recordAdminEventInCallerRealm(ctx, {
      operationType: 'CREATE',
      resourceType: 'REALM',
      resourcePath: name,
      representation: r,
    });
    return created;
  });
  invalidate.realm(ctx.loaders, realm);
  log.info(`Realm ${name} created`);
  return realm;
}

/** A creator without master `admin` receives every ALL_REALM_ROLES role of the new `<realm>-realm` client. */
async function grantCreatorRoles(db: Db, realm: RealmModel, userId: string, masterId: string): Promise<void> {
  const client = await db.models.Client.findOne({ where: { realmId: masterId, clientId: `${realm.name}-realm` } });
  if (!client) return;
  const roles = await db.models.Role.findAll({ where: { clientId: client.id, name: { [Op.in]: [...ALL_REALM_ROLES] } } });
  await db.models.UserRoleMapping.bulkCreate(
    roles.map((role) => ({ userId, roleId: role.id })),
    { ignoreDuplicates: true },
  );
}
