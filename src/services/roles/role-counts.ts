import type { RealmModel } from '../../db/models/realm';
import type { RequestContext } from '../../core/context';
import { requireCap } from '../../auth/permissions';
import { locateRole, type RoleLocator } from './role-access';

/**
 * The number of users holding a role by a direct mapping (what GET /roles/{name}/users pages
 * through), for any number of roles in one statement; the same permissions as listing them.
 */
export async function countRoleUsers(ctx: RequestContext, realm: RealmModel, loc: RoleLocator): Promise<number> {
  const { role } = await locateRole(ctx, realm, loc, 'view');
  await requireCap(ctx, realm, 'queryUsers');
  return ctx.loaders.userCountByRole.load(role.id);
}
