import { GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { type CertificateRep, generateClientCertificate, getClientCertificate } from '../../src/services/clients/client-certificates';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import { resolveClient } from '../../src/services/clients/clients';
import { Client, clientModel } from './types';
import { ClientCertificate } from './registration-types';
import { type InRealm, realmOf } from '../types/common';

const attrArg = () =>
  Arg('attr', () => GraphQLString, { description: 'Attribute prefix: jwt.credential, saml.signing, saml.encryption, ...' });

/** Client → attribute certificates: key info and key generation. */
@Resolver(() => Client)
export class ClientCertificateResolver {
  @FieldResolver(() => ClientCertificate, { description: 'Key info of an attribute prefix (GET /clients/{id}/certificates/{attr}).' })
  async certificate(@Root() client: InRealm, @Ctx() ctx: RequestContext, @attrArg() attr: string): Promise<CertificateRep> {
    return getClientCertificate(ctx, realmOf(client), await clientModel(ctx, client), attr);
  }

  @Query(() => ClientCertificate, { description: "A client's key info for an attribute prefix (GET /clients/{id}/certificates/{attr})." })
  async clientCertificate(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('clientId', () => GraphQLID, { description: 'Client UUID.' }) clientId: string,
    @attrArg() attr: string,
  ): Promise<CertificateRep> {
    const r = await resolveRealm(ctx, realm);
    return getClientCertificate(ctx, r, await resolveClient(ctx, r, clientId), attr);
  }

  @Mutation(() => ClientCertificate, {
    description:
      'Generates a key pair and self-signed certificate for the client and stores both (POST /clients/{id}/certificates/{attr}/generate).',
  })
  async generateClientCertificate(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('clientId', () => GraphQLID, { description: 'Client UUID.' }) clientId: string,
    @attrArg() attr: string,
  ): Promise<CertificateRep> {
    const r = await resolveRealm(ctx, realm);
    return generateClientCertificate(ctx, r, await resolveClient(ctx, r, clientId), attr);
  }
}
