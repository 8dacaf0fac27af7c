import { randomUUID } from 'node:crypto';
import { Op, type WhereOptions } from 'sequelize';
import { KEY_PROVIDER_TYPE } from '../../auth/keys';
import { requireCap } from '../../auth/permissions';
import type { ComponentModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { errorB, errorC, notFound } from '../../core/errors';
import { write } from '../../core/db-errors';
import type { ComponentRep } from '../../representations/component';
import { invalidateRealmKeys } from '../../auth/realm-keys';
import type { ComponentTypeRep } from '../../representations/component-type';
import { componentFactory, componentTypesOf } from './types';
import type { ComponentFactory } from './config';
import type { ComponentDraft } from './config';
import { type ComponentInput, componentRepresentation, createConfig, eventRepresentation, mergeConfig, parentIdOf } from './input';
import { recordAdminEvent } from '../../core/admin-events';
import { deleteStorageProviderRows, deleteUserRows } from '../../core/cascade';
import { grantHardcodedToProvider, isHardcodedMembershipMapper, withdrawHardcoded } from '../user-storage/hardcoded-mappers';
import type { RequestContext } from '../../core/context';
import { batchLoad } from '../../loaders/batch';

/**
 * Components — `/admin/realms/{realm}/components` (config reference §6): key providers, user
 * federation and its mappers, client registration policies, the user profile. Reads need
 * view-realm, writes manage-realm. Provider validation runs before the write transaction (it may
 * generate key material); a write to a key provider invalidates the realm's key cache, so the next
 * token is signed with the key that is now active.
 */

const noSuchProvider = () => errorC(400, 'Invalid provider type or no such provider');

function factoryOrThrow(providerType: string | null | undefined, providerId: string | null | undefined): ComponentFactory {
  const f = componentFactory(providerType, providerId);
  if (!f) throw noSuchProvider();
  return f;
}

/** A component of the realm by id, or 404 `Could not find component`. */
async function findComponent(
  ctx: RequestContext,
  realm: RealmModel,
  id: string,
  message = 'Could not find component',
): Promise<ComponentModel> {
  const c = await batchLoad(ctx.memo, 'components', (ids: readonly string[]) => componentsById(ctx, ids), id);
  if (!c || c.realmId !== realm.id) throw notFound(message);
  return c;
}

/** Components by id (in key order, null when missing): the lookups of one request tick in one statement. */
async function componentsById(ctx: RequestContext, ids: readonly string[]): Promise<Array<ComponentModel | null>> {
  const rows = await ctx.db.models.Component.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id) ?? null);
}

export interface ComponentFilter {
  parent?: string;
  type?: string;
  name?: string;
  providerId?: string;
}

/** GET /{realm}/components?parent&type&name: no parent nor type → all; only type → children of the realm. */
export async function listComponents(ctx: RequestContext, realm: RealmModel, f: ComponentFilter = {}): Promise<ComponentRep[]> {
  await requireCap(ctx, realm, 'viewRealm');
  const where: WhereOptions = { realmId: realm.id };
  if (f.parent !== undefined || f.type !== undefined) Object.assign(where, { parentId: parentIdOf(realm, f.parent) });
  if (f.type !== undefined) Object.assign(where, { providerType: f.type });
  if (f.name !== undefined) Object.assign(where, { name: f.name });
  if (f.providerId !== undefined) Object.assign(where, { providerId: f.providerId });
  const rows = await ctx.db.models.Component.findAll({ where, order: [['id', 'ASC']] });
  return rows.map(componentRepresentation);
}

/** GET /{realm}/components/{id}: 404 first, then view-realm. */
export async function getComponent(ctx: RequestContext, realm: RealmModel, id: string): Promise<ComponentRep> {
  const c = await findComponent(ctx, realm, id);
  await requireCap(ctx, realm, 'viewRealm');
  return componentRepresentation(c);
}

const afterWrite = (ctx: RequestContext, realm: RealmModel, ...types: string[]) => {
  if (types.includes(KEY_PROVIDER_TYPE)) invalidateRealmKeys(ctx.db, realm.id);
};

const duplicate = () => errorB(409, 'conflict', 'Component with the same id already exists');

/** POST /{realm}/components: validates with the provider (may generate keys), creates it and its sub-components. Returns the id. */
export async function createComponent(ctx: RequestContext, realm: RealmModel, rep: ComponentInput): Promise<string> {
  await requireCap(ctx, realm, 'manageRealm');
  const factory = factoryOrThrow(rep.providerType, rep.providerId);
  const draft: ComponentDraft = {
    id: rep.id || randomUUID(),
    realm,
    name: rep.name ?? '',
    parentId: parentIdOf(realm, rep.parentId),
    providerId: rep.providerId as string,
    providerType: rep.providerType as string,
    subType: rep.subType ?? null,
    config: createConfig(rep.config),
  };
  await factory.validate?.(draft);
  const children = (factory.children?.(draft) ?? []).map((c) => ({ ...c, id: randomUUID(), realmId: realm.id }));
  const { realm: _realm, ...row } = draft;
  await write(ctx, { unique: duplicate }, async () => {
    await ctx.db.models.Component.create({ ...row, realmId: realm.id });
    if (children.length) await ctx.db.models.Component.bulkCreate(children);
    // An LDAP provider's hardcoded role or group mapper: every user it has imported gets the role or group.
    await grantHardcodedToProvider(ctx.db, realm, row);
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'COMPONENT',
      resourcePath: `components/${draft.id}`,
      representation: eventRepresentation(rep, factory),
    });
  });
  afterWrite(ctx, realm, draft.providerType);
  ctx.log.info(`Created component ${draft.id} (${draft.providerType}/${draft.providerId}) in realm ${realm.name}`);
  return draft.id;
}

/** PUT /{realm}/components/{id}: fields replaced when present, config merged (§6.2), provider validation again. */
export async function updateComponent(ctx: RequestContext, realm: RealmModel, id: string, rep: ComponentInput): Promise<void> {
  const c = await findComponent(ctx, realm, id);
  await requireCap(ctx, realm, 'manageRealm');
  const draft: ComponentDraft = {
    id,
    realm,
    name: rep.name ?? c.name,
    parentId: rep.parentId ? parentIdOf(realm, rep.parentId) : c.parentId,
    providerType: rep.providerType ?? c.providerType,
    providerId: rep.providerId ?? c.providerId,
    subType: rep.subType ?? c.subType,
    config: c.config ?? {},
  };
  const factory = factoryOrThrow(draft.providerType, draft.providerId);
  draft.config = mergeConfig(factory, draft.config, rep.config);
  await factory.validate?.(draft);
  const previousType = c.providerType;
  await ctx.db.transaction(async () => {
    await ctx.db.models.Component.update(
      {
        name: draft.name,
        parentId: draft.parentId,
        providerType: draft.providerType,
        providerId: draft.providerId,
        subType: draft.subType,
        config: draft.config,
      },
      { where: { id } },
    );
    // A hardcoded role or group mapper re-pointed: its rows go, the new role or group is given instead.
    if (isHardcodedMembershipMapper(c.providerId) || isHardcodedMembershipMapper(draft.providerId)) {
      await withdrawHardcoded(ctx.db, [id]);
      await grantHardcodedToProvider(ctx.db, realm, draft);
    }
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'COMPONENT',
      resourcePath: `components/${id}`,
      representation: eventRepresentation(rep, factory),
    });
  });
  afterWrite(ctx, realm, previousType, draft.providerType);
}

/** Ids of the component and all its descendants (one query per level of the tree). */
async function subtree(ctx: RequestContext, realm: RealmModel, id: string): Promise<{ ids: string[]; types: Set<string> }> {
  const ids = [id];
  const types = new Set<string>();
  let frontier = [id];
  while (frontier.length) {
    const rows = await ctx.db.models.Component.findAll({
      where: { realmId: realm.id, parentId: { [Op.in]: frontier } },
      attributes: ['id', 'providerType'],
    });
    frontier = rows.map((r) => r.id).filter((x) => !ids.includes(x));
    ids.push(...frontier);
    for (const r of rows) types.add(r.providerType);
  }
  return { ids, types };
}

/** DELETE /{realm}/components/{id}: removes it, its sub-components, and users a user-storage provider imported. */
export async function deleteComponent(ctx: RequestContext, realm: RealmModel, id: string): Promise<void> {
  const c = await findComponent(ctx, realm, id);
  await requireCap(ctx, realm, 'manageRealm');
  const { ids, types } = await subtree(ctx, realm, id);
  await ctx.db.transaction(async () => {
    const imported = await ctx.db.models.User.findAll({ where: { realmId: realm.id, federationLink: id }, attributes: ['id'] });
    for (const u of imported) await deleteUserRows(ctx, u.id);
    await deleteStorageProviderRows(ctx, id);
    // The role mappings and memberships a deleted hardcoded mapper gave (its provider's users keep their own).
    await withdrawHardcoded(ctx.db, ids);
    await ctx.db.models.Component.destroy({ where: { id: { [Op.in]: ids } } });
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'COMPONENT', resourcePath: `components/${id}` });
  });
  afterWrite(ctx, realm, c.providerType, ...types);
}

/** GET /{realm}/components/{id}/sub-component-types?type=: the provider types of that SPI for this parent. */
export async function subComponentTypes(
  ctx: RequestContext,
  realm: RealmModel,
  id: string,
  type: string | undefined,
): Promise<ComponentTypeRep[]> {
  await requireCap(ctx, realm, 'viewRealm');
  await findComponent(ctx, realm, id, 'Could not find parent component');
  if (type === undefined) throw errorC(400, 'must specify a subtype');
  return componentTypesOf(ctx, realm, type);
}
