import type { GroupModel } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { RequestContext } from '../../core/context';
import { requireCap } from '../../auth/permissions';

/**
 * The number of direct members of a group (what GET /groups/{id}/members pages through), for any
 * number of groups in one statement; the same permission as listing them.
 */
export async function countMembers(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<number> {
  await requireCap(ctx, realm, 'viewUsers');
  return ctx.loaders.memberCountByGroup.load(group.id);
}
