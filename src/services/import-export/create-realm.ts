import { Op } from 'sequelize';
import { MASTER, masterRealmRoles } from '../../auth/permissions';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { badRequest, conflict, errorA, forbidden } from '../../core/errors';
import { write } from '../../core/db-errors';
import { invalidate } from '../../loaders/invalidate';
import { checkReservedChars } from '../../core/reserved-chars';
import { getLogger } from '../../logging';
import { recordAdminEventInCallerRealm } from '../../core/admin-events';
import { type RequestContext, systemContext } from '../../core/context';
import { checkEventListeners } from '../events/events';
import { ALL_REALM_ROLES } from '../../keycloak/realm-defaults';
import { prepareRealmKeys, setupRealm } from '../realms/realm-setup';
import { readRealmRepresentation, settingsFrom } from '../realms/realm-settings';
import { importRealmContent } from './realm-import';
import { importPlan } from './realm-import-clients';
import type { RealmRepresentation } from '../../representations/realm';

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
  if (await ctx.db.models.Realm.findOne({ where: { name } })) throw conflict(`Realm ${name} already exists`);
  const plan = importPlan(r);
  // Key providers in the representation are the realm's keys; otherwise the generated defaults.
  const keys = plan.hasKeyProviders ? [] : await prepareRealmKeys(name);
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
