import { GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { convertClientDescription } from '../../src/services/clients/client-description';
import { clientInstallation } from '../../src/services/clients/client-installation';
import { testNodesAvailable } from '../../src/services/clients/client-nodes';
import { type Credential, getClientSecret, getRotatedSecret } from '../../src/services/clients/client-secret';
import { resolveClient } from '../../src/services/clients/clients';
import { resolveRealm } from '../../src/services/realms/realms';
import { GlobalRequestResult } from '../sessions/types';
import type { Rep } from '../types/common';
import { JSON as JSONScalar, JSONObject } from '../types/scalars';
import { Client, ClientSecret } from './types';

/** A text document the REST front serves as a file (installation files, SAML broker metadata). */
@ObjectType({ description: 'A document the REST endpoint serves as a file: its media type and its text.' })
export class TextFile {
  @Field(() => GraphQLString, { description: 'The Content-Type of the REST response, e.g. text/plain or application/xml.' })
  mediaType!: string;
  @Field(() => GraphQLString, { description: 'The document, exactly as the REST body.' }) content!: string;
  @Field(() => JSONScalar, { nullable: true, description: 'The document parsed, when it is JSON (e.g. keycloak.json); null otherwise.' })
  json?: unknown;
}

/** A service's `{contentType, body}` as a TextFile. */
export function textFile(file: { contentType: string; body: string }): TextFile {
  let json: unknown = null;
  try {
    json = JSON.parse(file.body);
  } catch {
    // not JSON: XML, a CLI script, ...
  }
  return { mediaType: file.contentType, content: file.body, json };
}

const realmArg = () => Arg('realm', () => GraphQLString);
const uuidArg = () => Arg('clientUuid', () => GraphQLID, { description: 'Client UUID (`id`).' });

/** The client of `realm` by UUID, with the 404-or-403 rule of the REST parent (`rest/parents.ts`). */
export async function clientIn(ctx: RequestContext, realm: string, clientUuid: string) {
  const r = await resolveRealm(ctx, realm);
  return { r, client: await resolveClient(ctx, r, clientUuid) };
}

/** Client sub-resources read one at a time: secrets, installation files, description converter, node test. */
@Resolver(() => Client)
export class ClientExtrasResolver {
  @Query(() => ClientSecret, { description: "The client's secret (GET /clients/{id}/client-secret); value null for public clients." })
  async clientSecret(@Ctx() ctx: RequestContext, @realmArg() realm: string, @uuidArg() clientUuid: string): Promise<Credential> {
    const { r, client } = await clientIn(ctx, realm, clientUuid);
    return getClientSecret(ctx, r, client);
  }

  @Query(() => ClientSecret, {
    description: 'The rotated client secret (GET /clients/{id}/client-secret/rotated); NOT_FOUND when the client has none.',
  })
  async clientRotatedSecret(@Ctx() ctx: RequestContext, @realmArg() realm: string, @uuidArg() clientUuid: string): Promise<Credential> {
    const { r, client } = await clientIn(ctx, realm, clientUuid);
    return getRotatedSecret(ctx, r, client);
  }

  @Query(() => TextFile, {
    description: 'An adapter configuration file of the client (GET /clients/{id}/installation/providers/{providerId}).',
  })
  async clientInstallation(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @Arg('providerId', () => GraphQLString, { description: 'e.g. keycloak-oidc-keycloak-json, keycloak-saml, saml-sp-descriptor.' })
    providerId: string,
  ): Promise<TextFile> {
    const { r, client } = await clientIn(ctx, realm, clientUuid);
    return textFile(await clientInstallation(ctx, r, client, providerId));
  }

  @Query(() => JSONObject, {
    description:
      'Converts a client description (Keycloak client JSON, OIDC registration JSON or SAML EntityDescriptor XML) to a ClientRepresentation, not stored (POST /client-description-converter).',
  })
  async convertClientDescription(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('description', () => GraphQLString, { description: 'The document, as the REST body.' }) description: string,
  ): Promise<Rep> {
    return (await convertClientDescription(ctx, await resolveRealm(ctx, realm), description)) as Rep;
  }

  @Mutation(() => GlobalRequestResult, {
    description: 'Pings the admin URL of each registered cluster node (GET /clients/{id}/test-nodes-available).',
  })
  async testClientNodesAvailable(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
  ): Promise<GlobalRequestResult> {
    const { r, client } = await clientIn(ctx, realm, clientUuid);
    const result = await testNodesAvailable(ctx, r, client);
    return { successRequests: result.successRequests ?? [], failedRequests: result.failedRequests ?? [] };
  }
}
