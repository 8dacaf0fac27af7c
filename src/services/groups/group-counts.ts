import type { GroupModel } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { RequestContext } from '../../core/context';
import { requireViewMembers } from '../../auth/fgap';

/**
 * The number of direct members of a group (what GET /groups/{id}/members pages through), for any
 * number of groups in one statement; the same permission as listing them (view-members of the group).
 */
export async function countMembers(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<number> {
  await requireViewMembers(ctx, realm, group.id);
  return ctx.loaders.memberCountByGroup.load(group.id);
}
