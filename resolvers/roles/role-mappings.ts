import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, type ClassType, Ctx, FieldResolver, Mutation, Resolver, Root, registerEnumType } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import type { RealmModel } from '../../src/db/models/realm';
import { findGroup } from '../../src/services/groups/group-queries';
import { resolveUser } from '../../src/services/users/users';
import {
  addRoleMappingsTo,
  groupMappingOwner,
  listAvailableRoles,
  listEffectiveRoles,
  writtenMappings,
  removeRoleMappings,
  resolveMappingOwner,
  type MappingOwner as Owner,
  type MappingOwnerType,
  userMappingOwner,
} from '../../src/services/roles/role-mappings';
import { type InRealm, type Rep, allInRealm, plain, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';
import { Group } from '../groups/types';
import { User } from '../users/types';
import { ClientMappings, Role, RoleMappings } from './types';

/** Who holds role mappings: the `{owner}` of `/{users|groups}/{id}/role-mappings`. */
export enum MappingOwner {
  USER = 'users',
  GROUP = 'groups',
}
registerEnumType(MappingOwner, {
  name: 'MappingOwner',
  description: 'The holder of role mappings: a user or a group.',
  valuesConfig: {
    USER: { description: 'A user (`/users/{id}/role-mappings`).' },
    GROUP: { description: 'A group (`/groups/{id}/role-mappings`).' },
  },
});

const RoleInput = representationInput('RoleRepresentation');
const realmArg = () => Arg('realm', () => GraphQLString);
const ownerArg = () => Arg('owner', () => MappingOwner);
const ownerIdArg = () => Arg('ownerId', () => GraphQLID, { description: 'The user or group id.' });
const clientArg = () => Arg('clientUuid', () => GraphQLID, { description: 'Client UUID.' });
const rolesArg = () => Arg('roles', () => [RoleInput], { description: 'Roles of the container, each with its id and name.' });

/**
 * Role-mapping writes for users and groups (`POST/DELETE .../role-mappings/realm` and
 * `.../role-mappings/clients/{client}`). Each returns the owner's direct mappings of that container afterwards.
 */
@Resolver(() => RoleMappings)
export class RoleMappingsResolver {
  @Mutation(() => [Role], { description: 'Maps realm roles to a user or group.' })
  async addRealmRoleMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: MappingOwner,
    @ownerIdArg() ownerId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, undefined, (r, o) => addRoleMappingsTo(ctx, r, o, undefined, plain(roles)));
  }

  @Mutation(() => [Role], { description: 'Removes realm-role mappings of a user or group.' })
  async removeRealmRoleMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: MappingOwner,
    @ownerIdArg() ownerId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, undefined, (r, o) => removeRoleMappings(ctx, r, o, undefined, plain(roles)));
  }

  @Mutation(() => [Role], { description: 'Maps roles of a client to a user or group.' })
  async addClientRoleMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: MappingOwner,
    @ownerIdArg() ownerId: string,
    @clientArg() clientUuid: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, clientUuid, (r, o) => addRoleMappingsTo(ctx, r, o, clientUuid, plain(roles)));
  }

  @Mutation(() => [Role], { description: 'Removes client-role mappings of a user or group.' })
  async removeClientRoleMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: MappingOwner,
    @ownerIdArg() ownerId: string,
    @clientArg() clientUuid: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, clientUuid, (r, o) => removeRoleMappings(ctx, r, o, clientUuid, plain(roles)));
  }

  @FieldResolver(() => [Role])
  realmMappings(@Root() mappings: InRealm): InRealm[] {
    return allInRealm(realmOf(mappings), (mappings.realmMappings as Rep[] | undefined) ?? []);
  }

  @FieldResolver(() => [ClientMappings])
  clientMappings(@Root() mappings: InRealm): Rep[] {
    const byClient = (mappings.clientMappings as Record<string, Rep> | undefined) ?? {};
    return Object.values(byClient).map((m) => ({ ...m, mappings: allInRealm(realmOf(mappings), (m.mappings as Rep[]) ?? []) }));
  }
}

/** Resolves the owner once, runs one mapping write, then reads the owner's direct mappings of the container. */
async function change(
  ctx: RequestContext,
  realm: string,
  owner: MappingOwner,
  ownerId: string,
  clientUuid: string | undefined,
  write: (r: RealmModel, o: Owner) => Promise<void>,
): Promise<InRealm[]> {
  const r = await resolveRealm(ctx, realm);
  const o = await resolveMappingOwner(ctx, r, owner as MappingOwnerType, ownerId);
  await write(r, o);
  return allInRealm(r, await writtenMappings(ctx, r, o, clientUuid));
}

const clientUuidArg = () => Arg('clientUuid', () => GraphQLID, { description: 'Client UUID.' });
const briefArg = () =>
  Arg('brief', () => GraphQLBoolean, { nullable: true, description: 'Brief representations (default true); false adds attributes.' });

/**
 * The read-only `available` and `composite` role-mapping endpoints as fields of a user or group
 * (`GET /{users|groups}/{id}/role-mappings/realm|clients/{client}/available|composite`), one class
 * per owner type. The services read through the per-request loaders, so a list of N owners costs
 * the same few statements as one.
 */
function mappingReads(of: ClassType, path: string, ownerOf: (ctx: RequestContext, root: InRealm) => Promise<Owner>) {
  @Resolver(() => of)
  class MappingReadsResolver {
    @FieldResolver(() => [Role], {
      description: `Realm roles the caller may map that are not mapped directly (GET ${path}/realm/available).`,
    })
    async availableRealmRoles(@Root() root: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
      return allInRealm(realmOf(root), await listAvailableRoles(ctx, realmOf(root), await ownerOf(ctx, root)));
    }

    @FieldResolver(() => [Role], { description: `Effective realm roles, composites and groups expanded (GET ${path}/realm/composite).` })
    async compositeRealmRoles(@Root() root: InRealm, @Ctx() ctx: RequestContext, @briefArg() brief?: boolean): Promise<InRealm[]> {
      return allInRealm(realmOf(root), await listEffectiveRoles(ctx, realmOf(root), await ownerOf(ctx, root), undefined, brief ?? true));
    }

    @FieldResolver(() => [Role], {
      description: `Roles of a client the caller may map that are not mapped directly (GET ${path}/clients/{client}/available).`,
    })
    async availableClientRoles(@Root() root: InRealm, @Ctx() ctx: RequestContext, @clientUuidArg() clientUuid: string): Promise<InRealm[]> {
      return allInRealm(realmOf(root), await listAvailableRoles(ctx, realmOf(root), await ownerOf(ctx, root), clientUuid));
    }

    @FieldResolver(() => [Role], {
      description: `Effective roles of a client, composites and groups expanded (GET ${path}/clients/{client}/composite).`,
    })
    async compositeClientRoles(
      @Root() root: InRealm,
      @Ctx() ctx: RequestContext,
      @clientUuidArg() clientUuid: string,
      @briefArg() brief?: boolean,
    ): Promise<InRealm[]> {
      const r = realmOf(root);
      return allInRealm(r, await listEffectiveRoles(ctx, r, await ownerOf(ctx, root), clientUuid, brief ?? true));
    }
  }
  return MappingReadsResolver;
}

/** `User.availableRealmRoles`, `compositeRealmRoles`, `availableClientRoles`, `compositeClientRoles`. */
export const UserMappingReadsResolver = mappingReads(User, '/users/{id}/role-mappings', async (ctx, user) =>
  userMappingOwner(await resolveUser(ctx, realmOf(user), String(user.id))),
);

/** The same four fields on `Group`. */
export const GroupMappingReadsResolver = mappingReads(Group, '/groups/{id}/role-mappings', async (ctx, group) =>
  groupMappingOwner(await findGroup(ctx, realmOf(group), String(group.id))),
);
