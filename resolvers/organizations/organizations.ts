import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, Directive, Field, FieldResolver, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import {
  countOrganizations,
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  resolveOrganization,
  updateOrganization,
} from '../../src/services/organizations/organizations';
import {
  addOrganizationMember,
  countOrganizationMembers,
  listOrganizationMembers,
  organizationsOfUser,
  removeOrganizationMember,
} from '../../src/services/organizations/organization-members';
import { inviteExistingUser, inviteUser } from '../../src/services/organizations/organization-invites';
import {
  linkOrganizationIdentityProvider,
  listOrganizationIdentityProviders,
  unlinkOrganizationIdentityProvider,
} from '../../src/services/organizations/organization-idps';
import { resolveRealm } from '../../src/services/realms/realms';
import { allInRealm, type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';
import { JSONObject } from '../types/scalars';
import { Realm } from '../realms/types';
import { User } from '../users/types';
import { IdentityProvider } from '../identity-providers/identity-providers';

/** An internet domain of an organization (Keycloak OrganizationDomainRepresentation). */
@Directive('@representation(name: "OrganizationDomainRepresentation")')
@ObjectType({ description: 'An internet domain of an organization (Keycloak OrganizationDomainRepresentation).' })
export class OrganizationDomain {
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLBoolean) verified!: boolean;
}

/** An organization of a realm (Keycloak 26 OrganizationRepresentation). */
@Directive('@representation(name: "OrganizationRepresentation")')
@ObjectType({ description: 'An organization of a realm (Keycloak 26 OrganizationRepresentation).' })
export class Organization {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString) alias!: string;
  @Field(() => GraphQLBoolean) enabled!: boolean;
  @Field(() => GraphQLString, { nullable: true }) description?: string;
  @Field(() => GraphQLString, { nullable: true }) redirectUrl?: string;
  @Field(() => JSONObject, { nullable: true }) attributes?: Record<string, string[]>;
  @Field(() => [OrganizationDomain], { nullable: true, description: 'Internet domains of the organization.' })
  domains?: OrganizationDomain[];
}

/** A member of an organization: the user and how it joined. */
@ObjectType({ description: 'A member of an organization (Keycloak MemberRepresentation): the user and its membership type.' })
export class OrganizationMember {
  @Field(() => User, { description: 'The member.' }) user!: InRealm;
  @Field(() => GraphQLString, { description: 'MANAGED (created through the organization broker) or UNMANAGED.' })
  membershipType!: string;
}

const OrganizationInput = representationInput('OrganizationRepresentation');
const realmArg = () => Arg('realm', () => GraphQLString);
const idArg = () => Arg('id', () => GraphQLID, { description: 'Id of the organization.' });
const opt = (description: string) => ({ nullable: true, description }) as const;
const Q = 'Attribute query `key1:value1 key2:value2` (exact values; `alias:x` matches the alias); replaces `search`.';
const BRIEF = 'Whether to leave out the attributes (default true).';

async function orgIn(ctx: RequestContext, realm: string, id: string) {
  const r = await resolveRealm(ctx, realm);
  return { r, org: await resolveOrganization(ctx, r, id) };
}

/** Realm → organizations (`GET /organizations`, `/organizations/count`). */
@Resolver(() => Realm)
export class RealmOrganizationsResolver {
  @FieldResolver(() => [Organization], { description: 'Organizations of the realm, by name (GET /organizations).' })
  async organizations(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt('Part of a name or domain.')) search?: string,
    @Arg('exact', () => GraphQLBoolean, opt('Match the whole name or domain.')) exact?: boolean,
    @Arg('q', () => GraphQLString, opt(Q)) q?: string,
    @Arg('first', () => GraphQLInt, { nullable: true }) first?: number,
    @Arg('max', () => GraphQLInt, opt('Largest number of results (default 10).')) max?: number,
    @Arg('briefRepresentation', () => GraphQLBoolean, opt(BRIEF)) briefRepresentation?: boolean,
  ): Promise<InRealm[]> {
    const r = realmOf(realm);
    return allInRealm(r, await listOrganizations(ctx, r, { search, exact, q, first, max, brief: briefRepresentation }));
  }

  @FieldResolver(() => GraphQLInt, { description: 'Number of organizations matching the filters (GET /organizations/count).' })
  async organizationsCount(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt('Part of a name or domain.')) search?: string,
    @Arg('exact', () => GraphQLBoolean, opt('Match the whole name or domain.')) exact?: boolean,
    @Arg('q', () => GraphQLString, opt(Q)) q?: string,
  ): Promise<number> {
    return countOrganizations(ctx, realmOf(realm), { search, exact, q });
  }
}

/** Organization queries, relations and writes. */
@Resolver(() => Organization)
export class OrganizationResolver {
  @Query(() => Organization, { description: 'One organization, full (GET /organizations/{id}).' })
  async organization(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<InRealm> {
    const { r, org } = await orgIn(ctx, realm, id);
    return inRealm(r, await getOrganization(ctx, org));
  }

  @Query(() => [Organization], { description: 'The organizations a user is a member of (GET /organizations/members/{id}/organizations).' })
  async userOrganizations(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('userId', () => GraphQLID) userId: string,
    @Arg('briefRepresentation', () => GraphQLBoolean, opt(BRIEF)) briefRepresentation?: boolean,
  ): Promise<InRealm[]> {
    const r = await resolveRealm(ctx, realm);
    return allInRealm(r, await organizationsOfUser(ctx, r, userId, briefRepresentation !== false));
  }

  @FieldResolver(() => [OrganizationMember], { description: 'Members by username (GET /organizations/{id}/members).' })
  async members(
    @Root() org: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt('Part of a username, e-mail, first or last name.')) search?: string,
    @Arg('exact', () => GraphQLBoolean, opt('Match the whole value.')) exact?: boolean,
    @Arg('first', () => GraphQLInt, { nullable: true }) first?: number,
    @Arg('max', () => GraphQLInt, opt('Largest number of results (default 10).')) max?: number,
    @Arg('membershipType', () => GraphQLString, opt('MANAGED or UNMANAGED.')) membershipType?: string,
  ): Promise<Array<{ user: InRealm; membershipType: string }>> {
    const r = realmOf(org);
    const model = await resolveOrganization(ctx, r, String(org.id));
    const reps = await listOrganizationMembers(ctx, r, model, { search, exact, first, max, membershipType });
    return reps.map(({ membershipType: type, ...user }) => ({ user: inRealm(r, user), membershipType: type }));
  }

  @FieldResolver(() => GraphQLInt, { description: 'Number of members (GET /organizations/{id}/members/count).' })
  async membersCount(@Root() org: InRealm, @Ctx() ctx: RequestContext): Promise<number> {
    return countOrganizationMembers(ctx, await resolveOrganization(ctx, realmOf(org), String(org.id)));
  }

  @FieldResolver(() => [IdentityProvider], { description: 'Linked identity providers (GET /organizations/{id}/identity-providers).' })
  async identityProviders(@Root() org: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    const r = realmOf(org);
    return allInRealm(r, await listOrganizationIdentityProviders(ctx, await resolveOrganization(ctx, r, String(org.id))));
  }

  @Mutation(() => Organization, { description: 'Creates an organization (POST /organizations).' })
  async createOrganization(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => OrganizationInput, { description: 'The organization (OrganizationRepresentation).' }) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const id = await createOrganization(ctx, r, plain(input));
    return inRealm(r, await getOrganization(ctx, await resolveOrganization(ctx, r, id)));
  }

  @Mutation(() => Organization, { description: 'Replaces an organization (PUT /organizations/{id}).' })
  async updateOrganization(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('input', () => OrganizationInput, { description: 'The organization (OrganizationRepresentation).' }) input: Rep,
  ): Promise<InRealm> {
    const { r, org } = await orgIn(ctx, realm, id);
    await updateOrganization(ctx, r, org, plain(input));
    return inRealm(r, await getOrganization(ctx, org));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes an organization (DELETE /organizations/{id}).' })
  async deleteOrganization(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<boolean> {
    const { r, org } = await orgIn(ctx, realm, id);
    await deleteOrganization(ctx, r, org);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Adds an existing user as a member (POST /organizations/{id}/members).' })
  async addOrganizationMember(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('userId', () => GraphQLID) userId: string,
  ): Promise<boolean> {
    const { r, org } = await orgIn(ctx, realm, id);
    await addOrganizationMember(ctx, r, org, userId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Removes a member (DELETE /organizations/{id}/members/{userId}).' })
  async removeOrganizationMember(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('userId', () => GraphQLID) userId: string,
  ): Promise<boolean> {
    const { r, org } = await orgIn(ctx, realm, id);
    await removeOrganizationMember(ctx, r, org, userId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Mails an invitation to an e-mail address: a user with it, or a registration link (POST .../members/invite-user).',
  })
  async inviteOrganizationMember(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('email', () => GraphQLString, { description: 'E-mail address to invite.' }) email: string,
    @Arg('firstName', () => GraphQLString, opt('First name for the greeting.')) firstName?: string,
    @Arg('lastName', () => GraphQLString, opt('Last name for the greeting.')) lastName?: string,
  ): Promise<boolean> {
    const { r, org } = await orgIn(ctx, realm, id);
    await inviteUser(ctx, r, org, { email, firstName, lastName });
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Mails an invitation to an existing user (POST .../members/invite-existing-user).' })
  async inviteExistingOrganizationMember(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('userId', () => GraphQLID) userId: string,
  ): Promise<boolean> {
    const { r, org } = await orgIn(ctx, realm, id);
    await inviteExistingUser(ctx, r, org, userId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Links an identity provider (POST /organizations/{id}/identity-providers).' })
  async linkOrganizationIdentityProvider(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('alias', () => GraphQLString, { description: 'Alias or internal id of the identity provider.' }) alias: string,
  ): Promise<boolean> {
    const { r, org } = await orgIn(ctx, realm, id);
    await linkOrganizationIdentityProvider(ctx, r, org, alias);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Unlinks an identity provider (DELETE .../identity-providers/{alias}).' })
  async unlinkOrganizationIdentityProvider(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('alias', () => GraphQLString, { description: 'Alias of the identity provider.' }) alias: string,
  ): Promise<boolean> {
    const { r, org } = await orgIn(ctx, realm, id);
    await unlinkOrganizationIdentityProvider(ctx, r, org, alias);
    return true;
  }
}
