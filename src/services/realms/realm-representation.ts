import type { RealmModel } from '../../db/models/realm';
import type { RequestContext } from '../../core/context';
import { type RealmRepresentation, toDefaultRoleRepresentation, toRealmRepresentation } from '../../representations/realm';
import { groupPath } from '../groups/group-paths';

/**
 * The full realm representation with what it embeds from other tables (the default role, the
 * default groups' paths): GET /admin/realms/{realm}, the realm listing and partial export. A leaf
 * of the realms family, so import-export can use it without depending on realm creation.
 */
export async function realmRepresentation(ctx: RequestContext, realm: RealmModel): Promise<RealmRepresentation> {
  const id = realm.settings.defaultRoleId as string | undefined;
  const role = id ? await ctx.loaders.roleById.load(id) : null;
  const rows = await ctx.db.models.RealmDefaultGroup.findAll({ where: { realmId: realm.id } });
  return toRealmRepresentation(realm, {
    defaultRole: role ? toDefaultRoleRepresentation(role, realm) : undefined,
    defaultGroups: await Promise.all(rows.map((r) => groupPath(ctx, r.groupId))),
  });
}
