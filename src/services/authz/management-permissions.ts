import { requireManageGroup, requireViewGroup } from '../../auth/fgap';
import { requireClient } from '../../auth/fgap-clients';
import { requireCap } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import type { ClientModel } from '../../db/models/client';
import type { GroupModel } from '../../db/models/group';
import type { IdentityProviderModel } from '../../db/models/identity-provider';
import type { RealmModel } from '../../db/models/realm';
import { requireIdpAccess } from '../identity-providers/identity-providers';
import { locateRole, type RoleLocator } from '../roles/role-access';
import {
  clientSpec,
  enabledOf,
  groupSpec,
  idpSpec,
  type ManagementPermissionReference,
  type MgmtSpec,
  readManagementPermissions,
  roleSpec,
  setManagementPermissions,
  usersSpec,
} from './admin-permissions';

/**
 * The fourteen `management/permissions` endpoints, with the access checks Keycloak's admin resources
 * make before answering (GET: view the object, PUT: manage it). `body` is the PUT body; undefined
 * for GET. The objects themselves are in admin-permissions.ts.
 */
export type MgmtBody = { put: false } | { put: true; body: unknown };

function answer(ctx: RequestContext, realm: RealmModel, spec: MgmtSpec, req: MgmtBody): Promise<ManagementPermissionReference> {
  if (!req.put) return readManagementPermissions(ctx, realm, spec);
  return setManagementPermissions(ctx, realm, spec, enabledOf(req.body));
}

/** GET/PUT /{realm}/users-management-permissions: realm view to read, realm manage to change (RealmAdminResource). */
export async function usersManagementPermissions(ctx: RequestContext, realm: RealmModel, req: MgmtBody) {
  await requireCap(ctx, realm, req.put ? 'manageRealm' : 'viewRealm');
  return answer(ctx, realm, usersSpec(), req);
}

/** GET/PUT /{realm}/groups/{id}/management/permissions (the group resolved first: 404): view / manage of the group. */
export async function groupManagementPermissions(ctx: RequestContext, realm: RealmModel, group: GroupModel, req: MgmtBody) {
  await (req.put ? requireManageGroup : requireViewGroup)(ctx, realm, group.id);
  return answer(ctx, realm, groupSpec(group.id), req);
}

/** GET/PUT /{realm}/clients/{id}/management/permissions (the client resolved first): view / manage of the client. */
export async function clientManagementPermissions(ctx: RequestContext, realm: RealmModel, client: ClientModel, req: MgmtBody) {
  await requireClient(ctx, realm, client, req.put ? 'manage' : 'view');
  return answer(ctx, realm, clientSpec(client.id), req);
}

/**
 * GET/PUT {roleOwner}/{name}/management/permissions and roles-by-id/{id}/management/permissions: the
 * role located with its container's view (GET) or manage (PUT) check, as every role endpoint.
 */
export async function roleManagementPermissions(ctx: RequestContext, realm: RealmModel, loc: RoleLocator, req: MgmtBody) {
  const { role } = await locateRole(ctx, realm, loc, req.put ? 'manage' : 'view');
  return answer(ctx, realm, roleSpec(role.id), req);
}

/** GET/PUT .../identity-provider/instances/{alias}/management/permissions (resolved with view access): manage to change. */
export async function idpManagementPermissions(ctx: RequestContext, realm: RealmModel, idp: IdentityProviderModel, req: MgmtBody) {
  if (req.put) await requireIdpAccess(ctx, realm, 'manage');
  return answer(ctx, realm, idpSpec(idp.internalId), req);
}
