import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { resolveOrganization } from '../../src/services/organizations/organizations';
import { resendInvitation } from '../../src/services/organizations/organization-invites';
import {
  deleteInvitation,
  getInvitation,
  type InvitationRep,
  listInvitations,
} from '../../src/services/organizations/organization-invitations';
import { resolveRealm } from '../../src/services/realms/realms';
import { type InRealm, realmOf } from '../types/common';
import { Organization } from './organizations';

/** An invitation mailed to join an organization (Keycloak 26 OrganizationInvitationRepresentation). */
@ObjectType({ description: 'An invitation to join an organization (Keycloak 26 OrganizationInvitationRepresentation).' })
export class OrganizationInvitation {
  @Field(() => GraphQLID, { description: 'Id of the invitation (the `jti` of its link).' }) id!: string;
  @Field(() => GraphQLID, { description: 'Id of the organization.' }) organizationId!: string;
  @Field(() => GraphQLString, { description: 'The invited e-mail address.' }) email!: string;
  @Field(() => GraphQLString, { nullable: true, description: 'First name, when given.' }) firstName?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Last name, when given.' }) lastName?: string;
  @Field(() => GraphQLInt, { description: 'When it was sent (epoch seconds).' }) sentDate!: number;
  @Field(() => GraphQLInt, { description: 'When its link expires (epoch seconds).' }) expiresAt!: number;
  @Field(() => GraphQLString, { description: 'PENDING or EXPIRED.' }) status!: string;
}

const opt = (description: string) => ({ nullable: true, description }) as const;
const invitationArg = () => Arg('invitationId', () => GraphQLID, { description: 'Id of the invitation.' });

/** Organization → invitations; resend and delete. */
@Resolver(() => Organization)
export class OrganizationInvitationResolver {
  @FieldResolver(() => [OrganizationInvitation], { description: 'Invitations by id (GET /organizations/{id}/invitations).' })
  async invitations(
    @Root() org: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('status', () => GraphQLString, opt('PENDING or EXPIRED.')) status?: string,
    @Arg('email', () => GraphQLString, opt('Part of the e-mail address.')) email?: string,
    @Arg('search', () => GraphQLString, opt('Part of the e-mail, first or last name.')) search?: string,
    @Arg('firstName', () => GraphQLString, opt('Part of the first name.')) firstName?: string,
    @Arg('lastName', () => GraphQLString, opt('Part of the last name.')) lastName?: string,
    @Arg('first', () => GraphQLInt, { nullable: true }) first?: number,
    @Arg('max', () => GraphQLInt, { nullable: true }) max?: number,
  ): Promise<InvitationRep[]> {
    const model = await resolveOrganization(ctx, realmOf(org), String(org.id));
    return listInvitations(ctx, model, { status, email, search, firstName, lastName, first, max });
  }

  @FieldResolver(() => OrganizationInvitation, { description: 'One invitation (GET /organizations/{id}/invitations/{invitationId}).' })
  async invitation(@Root() org: InRealm, @Ctx() ctx: RequestContext, @invitationArg() invitationId: string): Promise<InvitationRep> {
    return getInvitation(ctx, await resolveOrganization(ctx, realmOf(org), String(org.id)), invitationId);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Mails an invitation again (POST .../invitations/{invitationId}/resend).' })
  async resendOrganizationInvitation(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID, { description: 'Id of the organization.' }) id: string,
    @invitationArg() invitationId: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await resendInvitation(ctx, r, await resolveOrganization(ctx, r, id), invitationId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes an invitation: its link stops working (DELETE .../invitations/{invitationId}).' })
  async deleteOrganizationInvitation(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID, { description: 'Id of the organization.' }) id: string,
    @invitationArg() invitationId: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await deleteInvitation(ctx, r, await resolveOrganization(ctx, r, id), invitationId);
    return true;
  }
}
