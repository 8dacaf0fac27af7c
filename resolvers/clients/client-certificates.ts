import { GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import {
  type CertificateRep,
  type CertificateUpload,
  type KeyStoreConfig,
  downloadClientKeystore,
  generateAndDownloadClientKeystore,
  generateClientCertificate,
  getClientCertificate,
  uploadClientCertificate,
} from '../../src/services/clients/client-certificates';
import { keystoreFormat } from '../../src/auth/keystores';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import { resolveClient } from '../../src/services/clients/clients';
import { clientIn } from './client-extras';
import { Client, clientModel } from './types';
import { ClientCertificate } from './registration-types';
import { type InRealm, plain, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';

const attrArg = () =>
  Arg('attr', () => GraphQLString, { description: 'Attribute prefix: jwt.credential, saml.signing, saml.encryption, ...' });
const realmArg = () => Arg('realm', () => GraphQLString);
const uuidArg = () => Arg('clientUuid', () => GraphQLID, { description: 'Client UUID (`id`).' });
const optArg = (name: string, description: string) => Arg(name, () => GraphQLString, { nullable: true, description });
const KeyStoreConfigInput = representationInput('KeyStoreConfig');
const uploadFormat = {
  description: 'Certificate PEM, Public Key PEM, JSON Web Key Set, JKS or PKCS12.',
} as const;

/** A keystore file built by the server (the body of `.../download` and `.../generate-and-download`). */
@ObjectType({ description: 'A keystore file (JKS or PKCS12), as the REST download returns it, base64-encoded.' })
export class ClientKeystore {
  @Field(() => GraphQLString, { description: 'JKS or PKCS12.' }) format!: string;
  @Field(() => GraphQLString, { description: 'The media type of the REST download: application/octet-stream.' }) mediaType!: string;
  @Field(() => GraphQLString, { description: 'The keystore file, base64.' }) content!: string;
}

const keystoreOut = (config: KeyStoreConfig, bytes: Buffer): ClientKeystore => ({
  format: keystoreFormat(config.format) ?? String(config.format),
  mediaType: 'application/octet-stream',
  content: bytes.toString('base64'),
});

/** Client → attribute certificates: key info, key generation, keystore download and upload. */
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
    @Arg('clientUuid', () => GraphQLID, { description: 'Client UUID.' }) clientUuid: string,
    @attrArg() attr: string,
  ): Promise<CertificateRep> {
    const r = await resolveRealm(ctx, realm);
    return getClientCertificate(ctx, r, await resolveClient(ctx, r, clientUuid), attr);
  }

  @Mutation(() => ClientCertificate, {
    description:
      'Generates a key pair and self-signed certificate for the client and stores both (POST /clients/{id}/certificates/{attr}/generate).',
  })
  async generateClientCertificate(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('clientUuid', () => GraphQLID, { description: 'Client UUID.' }) clientUuid: string,
    @attrArg() attr: string,
  ): Promise<CertificateRep> {
    const r = await resolveRealm(ctx, realm);
    return generateClientCertificate(ctx, r, await resolveClient(ctx, r, clientUuid), attr);
  }

  @Query(() => ClientKeystore, {
    description: 'The stored key and certificate as a keystore file (POST /clients/{id}/certificates/{attr}/download).',
  })
  async clientKeystore(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @attrArg() attr: string,
    @Arg('config', () => KeyStoreConfigInput) config: KeyStoreConfig,
  ): Promise<ClientKeystore> {
    const { r, client } = await clientIn(ctx, realm, clientUuid);
    const cfg = plain<KeyStoreConfig>(config);
    return keystoreOut(cfg, await downloadClientKeystore(ctx, r, client, attr, cfg));
  }

  @Mutation(() => ClientKeystore, {
    description:
      'Generates a key pair and certificate, returns them as a keystore file and stores only the certificate (POST /clients/{id}/certificates/{attr}/generate-and-download).',
  })
  async generateClientKeystore(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @attrArg() attr: string,
    @Arg('config', () => KeyStoreConfigInput) config: KeyStoreConfig,
  ): Promise<ClientKeystore> {
    const { r, client } = await clientIn(ctx, realm, clientUuid);
    const cfg = plain<KeyStoreConfig>(config);
    return keystoreOut(cfg, await generateAndDownloadClientKeystore(ctx, r, client, attr, cfg));
  }

  @Mutation(() => ClientCertificate, {
    description:
      'Stores the certificate, and the private key when the keystore has one, from an uploaded file (POST /clients/{id}/certificates/{attr}/upload).',
  })
  uploadClientKey(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @attrArg() attr: string,
    @Arg('keystoreFormat', () => GraphQLString, uploadFormat) keystoreFormat: string,
    @Arg('file', () => GraphQLString, { description: 'The uploaded file, base64.' }) file: string,
    @optArg('keyAlias', 'Alias of the entry in a JKS or PKCS12 keystore.') keyAlias?: string,
    @optArg('keyPassword', 'Password of the key entry.') keyPassword?: string,
    @optArg('storePassword', 'Password of the keystore.') storePassword?: string,
  ): Promise<CertificateRep> {
    return upload(ctx, realm, clientUuid, attr, { keystoreFormat, file, keyAlias, keyPassword, storePassword }, 'upload');
  }

  @Mutation(() => ClientCertificate, {
    description: 'Stores a certificate from an uploaded file (POST /clients/{id}/certificates/{attr}/upload-certificate).',
  })
  uploadClientCertificate(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @attrArg() attr: string,
    @Arg('keystoreFormat', () => GraphQLString, uploadFormat) keystoreFormat: string,
    @Arg('file', () => GraphQLString, { description: 'The uploaded file, base64.' }) file: string,
    @optArg('keyAlias', 'Alias of the entry in a JKS or PKCS12 keystore.') keyAlias?: string,
    @optArg('keyPassword', 'Password of the key entry.') keyPassword?: string,
    @optArg('storePassword', 'Password of the keystore.') storePassword?: string,
  ): Promise<CertificateRep> {
    return upload(ctx, realm, clientUuid, attr, { keystoreFormat, file, keyAlias, keyPassword, storePassword }, 'upload-certificate');
  }
}

type UploadArgs = Omit<CertificateUpload, 'file'> & { file: string; [k: string]: string | undefined };

/** The multipart fields of the REST upload, from GraphQL arguments (absent ones left out, as REST does). */
async function upload(
  ctx: RequestContext,
  realm: string,
  clientUuid: string,
  attr: string,
  args: UploadArgs,
  action: 'upload' | 'upload-certificate',
): Promise<CertificateRep> {
  const { r, client } = await clientIn(ctx, realm, clientUuid);
  const fields: CertificateUpload = { file: Buffer.from(args.file, 'base64') };
  for (const name of ['keystoreFormat', 'keyAlias', 'keyPassword', 'storePassword'] as const) {
    if (args[name]) fields[name] = args[name];
  }
  return uploadClientCertificate(ctx, r, client, attr, fields, action);
}
