import { GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { type CertificateRep, generateClientCertificate, getClientCertificate } from '../../src/services/clients/client-certificates';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import { Client } from './types';
import { ClientCertificate } from './registration-types';
import { type InRealm, realmOf } from '../types/common';

const attrArg = () =>
  Arg('attr', () => GraphQLString, { description: 'Attribute prefix: jwt.credential, saml.signing, saml.encryption, ...' });

/** Client → attribute certificates: key info and key generation. */
@Resolver(() => Client)
export class ClientCertificateResolver {
  @FieldResolver(() => ClientCertificate, { description: 'Key info of an attribute prefix (GET /clients/{id}/certificates/{attr}).' })
  certificate(@Root() client: InRealm, @Ctx() ctx: RequestContext, @attrArg() attr: string): Promise<CertificateRep> {
    return getClientCertificate(ctx, realmOf(client), String(client.id), attr);
  }

  @Query(() => ClientCertificate, { description: "A client's key info for an attribute prefix (GET /clients/{id}/certificates/{attr})." })
  async clientCertificate(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('clientId', () => GraphQLID, { description: 'Client UUID.' }) clientId: string,
    @attrArg() attr: string,
  ): Promise<CertificateRep> {
    return getClientCertificate(ctx, await resolveRealm(ctx, realm), clientId, attr);
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
    return generateClientCertificate(ctx, await resolveRealm(ctx, realm), clientId, attr);
  }
}
