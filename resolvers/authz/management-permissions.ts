import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, Mutation, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { badRequest } from '../../src/core/errors';
import type { ManagementPermissionReference } from '../../src/services/authz/admin-permissions';
import {
  clientManagementPermissions,
  groupManagementPermissions,
  idpManagementPermissions,
  type MgmtBody,
  roleManagementPermissions,
  usersManagementPermissions,
} from '../../src/services/authz/management-permissions';
import { resolveClient } from '../../src/services/clients/clients';
import { findGroup } from '../../src/services/groups/group-queries';
import { resolveIdentityProvider } from '../../src/services/identity-providers/identity-providers';
import { resolveRealm } from '../../src/services/realms/realms';
import { JSONObject } from '../types/scalars';

/**
 * Fine-grained admin permissions (issue 13 items 3 and 6): the GraphQL twins of the fourteen
 * `management/permissions` routes, calling the same service functions as rest/authz/management-permissions.ts.
 */

export enum ManagementPermissionKind {
  USERS = 'users',
  GROUP = 'group',
  CLIENT = 'client',
  ROLE = 'role',
  IDENTITY_PROVIDER = 'identityProvider',
}
registerEnumType(ManagementPermissionKind, {
  name: 'ManagementPermissionKind',
  description: "What the management permissions are of: the realm's users, or one group, client, role or identity provider.",
  valuesConfig: {
    USERS: { description: "The realm's users (users-management-permissions)." },
    GROUP: { description: 'One group, by id.' },
    CLIENT: { description: 'One client, by UUID.' },
    ROLE: { description: 'One realm or client role, by id.' },
    IDENTITY_PROVIDER: { description: 'One identity provider, by alias.' },
  },
});

@ObjectType('ManagementPermissionReference', { description: "Keycloak's ManagementPermissionReference." })
export class ManagementPermissionReferenceType {
  @Field(() => GraphQLBoolean, { description: 'Whether the permissions are on.' })
  enabled!: boolean;

  @Field(() => GraphQLString, { nullable: true, description: "The id of the object's resource on realm-management's resource server." })
  resource?: string;

  @Field(() => JSONObject, { nullable: true, description: 'Scope name to the id of its scope permission.' })
  scopePermissions?: Record<string, string>;
}

const realmArg = () => Arg('realm', () => GraphQLString);
const kindArg = () => Arg('kind', () => ManagementPermissionKind, { description: 'What the permissions are of.' });
const idArg = () =>
  Arg('id', () => GraphQLID, {
    nullable: true,
    description: 'The group id, client UUID, role id or identity provider alias (none for users).',
  });

async function answer(
  ctx: RequestContext,
  realm: string,
  kind: ManagementPermissionKind,
  id: string | null | undefined,
  req: MgmtBody,
): Promise<ManagementPermissionReference> {
  const r = await resolveRealm(ctx, realm);
  if (kind === ManagementPermissionKind.USERS) return usersManagementPermissions(ctx, r, req);
  if (!id) throw badRequest('id is required');
  switch (kind) {
    case ManagementPermissionKind.GROUP:
      return groupManagementPermissions(ctx, r, await findGroup(ctx, r, id), req);
    case ManagementPermissionKind.CLIENT:
      return clientManagementPermissions(ctx, r, await resolveClient(ctx, r, id), req);
    case ManagementPermissionKind.ROLE:
      return roleManagementPermissions(ctx, r, { id }, req);
    default:
      return idpManagementPermissions(ctx, r, await resolveIdentityProvider(ctx, r, id, 'view'), req);
  }
}

@Resolver()
export class ManagementPermissionsResolver {
  @Query(() => ManagementPermissionReferenceType, {
    description:
      'Fine-grained admin permissions of the users, a group, client, role or identity provider (GET .../management/permissions).',
  })
  managementPermissions(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @kindArg() kind: ManagementPermissionKind,
    @idArg() id?: string | null,
  ): Promise<ManagementPermissionReference> {
    return answer(ctx, realm, kind, id, { put: false });
  }

  @Mutation(() => ManagementPermissionReferenceType, {
    description: 'Turns fine-grained admin permissions on or off (PUT .../management/permissions).',
  })
  setManagementPermissions(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @kindArg() kind: ManagementPermissionKind,
    @Arg('enabled', () => GraphQLBoolean, { description: 'true creates the permissions, false removes them.' }) enabled: boolean,
    @idArg() id?: string | null,
  ): Promise<ManagementPermissionReference> {
    return answer(ctx, realm, kind, id, { put: true, body: { enabled } });
  }
}
