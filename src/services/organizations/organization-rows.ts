import type { RequestContext } from '../../core/context';
import { deleteUserRows } from '../../core/cascade';
import type { OrganizationMemberModel, OrganizationModel } from '../../db/models/organization';
import { invalidate } from '../../loaders/invalidate';

/**
 * Removes memberships as Keycloak's removeMember does: a MANAGED member (created through the
 * organization's identity provider) is deleted with everything of the user, an UNMANAGED one only
 * leaves. Inside the caller's transaction.
 */
export async function removeMemberRows(ctx: RequestContext, org: OrganizationModel, members: OrganizationMemberModel[]): Promise<void> {
  for (const mb of members) {
    if (mb.membershipType === 'MANAGED') {
      await deleteUserRows(ctx, mb.userId);
      invalidate.user(ctx.loaders, mb.userId);
    } else {
      await ctx.db.models.OrganizationMember.destroy({ where: { organizationId: org.id, userId: mb.userId } });
    }
  }
}
