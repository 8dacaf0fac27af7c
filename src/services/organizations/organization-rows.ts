import type { RequestContext } from '../../core/context';
import { deleteUserRows } from '../../core/cascade';
import type { OrganizationMemberModel, OrganizationModel } from '../../db/models/organization';
import { invalidate } from '../../loaders/invalidate';
import { subtreeIds } from '../groups/group-paths';

/**
 * Removes memberships as Keycloak's removeMember does: a MANAGED member (created through the
 * organization's identity provider) is deleted with everything of the user, an UNMANAGED one only
 * leaves (and its groups). Inside the caller's transaction.
 */
export async function removeMemberRows(ctx: RequestContext, org: OrganizationModel, members: OrganizationMemberModel[]): Promise<void> {
  for (const mb of members) {
    if (mb.membershipType === 'MANAGED') {
      await deleteUserRows(ctx, mb.userId);
      invalidate.user(ctx.loaders, mb.userId);
    } else {
      await ctx.db.models.OrganizationMember.destroy({ where: { organizationId: org.id, userId: mb.userId } });
      // Leaving the organization is leaving its groups.
      await ctx.db.sequelize.query(
        'DELETE FROM user_group_membership WHERE user_id = :user AND group_id IN (SELECT id FROM keycloak_group WHERE organization_id = :org)',
        { replacements: { user: mb.userId, org: org.id } },
      );
      invalidate.user(ctx.loaders, mb.userId);
    }
  }
}

/** Deletes groups with their subtrees, memberships and role mappings, inside the caller's transaction. */
export async function removeGroupRows(ctx: RequestContext, roots: string[]): Promise<void> {
  if (!roots.length) return;
  const m = ctx.db.models;
  const all = await subtreeIds(ctx, roots, true);
  await m.UserGroupMembership.destroy({ where: { groupId: all } });
  await m.GroupRoleMapping.destroy({ where: { groupId: all } });
  await m.Group.destroy({ where: { id: all } });
}
