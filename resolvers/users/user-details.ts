import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { listConsents, revokeConsent } from '../../src/services/users/consents';
import type { RequestContext } from '../../src/core/context';
import { deleteCredential, listCredentials, moveCredential, resetPassword, setCredentialLabel } from '../../src/services/users/credentials';
import { linkFederatedIdentity, listFederatedIdentities, unlinkFederatedIdentity } from '../../src/services/users/federated-identities';
import { impersonate } from '../../src/services/users/impersonation';
import { resolveRealm } from '../../src/services/realms/realms';
import { resolveUser } from '../../src/services/users/users';
import type { RealmModel } from '../../src/db/models/realm';
import type { UserModel } from '../../src/db/models/user';
import { type InRealm, type Rep, plain, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';
import { User } from './types';
import { Credential, FederatedIdentity, Impersonation, UserConsent } from './details-types';

const CredentialInput = representationInput('CredentialRepresentation');
const FederatedIdentityInput = representationInput('FederatedIdentityRepresentation');
const realmArg = () => Arg('realm', () => GraphQLString);
const userArg = () => Arg('id', () => GraphQLID, { description: 'User id.' });

/** The realm and the user a mutation on `{realm}/users/{id}` works on (resolved as REST resolves them). */
async function userIn(ctx: RequestContext, realm: string, id: string): Promise<[RealmModel, UserModel]> {
  const r = await resolveRealm(ctx, realm);
  return [r, await resolveUser(ctx, r, id)];
}

/** Credentials, consents, identity provider links and impersonation of a user (same services as REST). */
@Resolver(() => User)
export class UserDetailsResolver {
  @FieldResolver(() => [Credential], { description: 'Credential metadata by priority (GET /users/{id}/credentials).' })
  async credentials(@Root() user: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return listCredentials(ctx, realmOf(user), await resolveUser(ctx, realmOf(user), String(user.id)));
  }

  @FieldResolver(() => [UserConsent], { description: 'Consents and offline grants (GET /users/{id}/consents).' })
  async consents(@Root() user: InRealm, @Ctx() ctx: RequestContext): Promise<object[]> {
    return listConsents(ctx, realmOf(user), await resolveUser(ctx, realmOf(user), String(user.id)));
  }

  @FieldResolver(() => [FederatedIdentity], { description: 'Identity provider links (GET /users/{id}/federated-identity).' })
  async federatedIdentities(@Root() user: InRealm, @Ctx() ctx: RequestContext): Promise<object[]> {
    return listFederatedIdentities(ctx, realmOf(user), await resolveUser(ctx, realmOf(user), String(user.id)));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Sets a new password (PUT /users/{id}/reset-password); `value` is the password.' })
  async resetPassword(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @userArg() id: string,
    @Arg('input', () => CredentialInput) input: Rep,
  ): Promise<boolean> {
    await resetPassword(ctx, ...(await userIn(ctx, realm, id)), plain(input));
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Removes a credential (DELETE /users/{id}/credentials/{credentialId}).' })
  async deleteCredential(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @userArg() id: string,
    @Arg('credentialId', () => GraphQLID) credentialId: string,
  ): Promise<boolean> {
    await deleteCredential(ctx, ...(await userIn(ctx, realm, id)), credentialId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Sets the label of a credential (PUT .../credentials/{credentialId}/userLabel).' })
  async setCredentialLabel(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @userArg() id: string,
    @Arg('credentialId', () => GraphQLID) credentialId: string,
    @Arg('label', () => GraphQLString) label: string,
  ): Promise<boolean> {
    await setCredentialLabel(ctx, ...(await userIn(ctx, realm, id)), credentialId, label);
    return true;
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Moves a credential behind `after`, or first without it (POST .../moveAfter/{after}, .../moveToFirst).',
  })
  async moveCredential(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @userArg() id: string,
    @Arg('credentialId', () => GraphQLID) credentialId: string,
    @Arg('after', () => GraphQLID, { nullable: true }) after?: string,
  ): Promise<boolean> {
    await moveCredential(ctx, ...(await userIn(ctx, realm, id)), credentialId, after ?? null);
    return true;
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Revokes consent and offline tokens of a client (DELETE /users/{id}/consents/{clientId}).',
  })
  async revokeConsent(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @userArg() id: string,
    @Arg('clientId', () => GraphQLString) clientId: string,
  ): Promise<boolean> {
    await revokeConsent(ctx, ...(await userIn(ctx, realm, id)), clientId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Links the user to a provider account (POST /users/{id}/federated-identity/{alias}).' })
  async linkFederatedIdentity(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @userArg() id: string,
    @Arg('alias', () => GraphQLString) alias: string,
    @Arg('input', () => FederatedIdentityInput) input: Rep,
  ): Promise<boolean> {
    await linkFederatedIdentity(ctx, ...(await userIn(ctx, realm, id)), alias, plain(input));
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Removes a provider link (DELETE /users/{id}/federated-identity/{alias}).' })
  async unlinkFederatedIdentity(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @userArg() id: string,
    @Arg('alias', () => GraphQLString) alias: string,
  ): Promise<boolean> {
    await unlinkFederatedIdentity(ctx, ...(await userIn(ctx, realm, id)), alias);
    return true;
  }

  @Mutation(() => Impersonation, { description: 'Impersonates the user (POST /users/{id}/impersonation).' })
  async impersonate(@Ctx() ctx: RequestContext, @realmArg() realm: string, @userArg() id: string): Promise<Impersonation> {
    const { redirect, sameRealm } = await impersonate(ctx, ...(await userIn(ctx, realm, id)));
    return { redirect, sameRealm };
  }
}
