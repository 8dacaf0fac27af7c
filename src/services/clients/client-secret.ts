import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { errorC, notFound } from '../../core/errors';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import type { ClientRepresentation } from '../../representations/client';
import type { ClientPoliciesRepresentation, ClientProfilesRepresentation } from '../../representations/client-policy';
import { ROTATED, ROTATED_EXPIRES, generateSecret, nowSeconds } from './client-input';
import { clientRepresentations, requireClientAccess } from './clients';
import type { RequestContext } from '../../core/context';
import { saveClient } from './client-writes';

/**
 * Client secret (config reference §1.5) and registration access token (§1.6). Rotation: when the
 * realm has an enabled client policy whose profile carries the `secret-rotation` executor, a new
 * secret keeps the previous one as the rotated secret (attributes `client.secret.rotated*`) until
 * `rotated-expiration-period` passes; the token endpoint accepts it meanwhile (`acceptsSecret`).
 * Policy conditions are not evaluated: such a policy applies to every confidential client.
 */
export interface Credential {
  type: 'secret';
  value?: string;
}

const ROTATED_CREATED = 'client.secret.rotated.creation.time';
const EXPIRES = 'client.secret.expiration.time';
const CREATED = 'client.secret.creation.time';

/** The configuration of Keycloak's `secret-rotation` executor (seconds, as numbers or strings). */
interface SecretRotationConfiguration {
  'expiration-period'?: unknown;
  'rotated-expiration-period'?: unknown;
}
const attrsOf = (c: ClientModel): Record<string, string> => ({ ...((c.settings?.attributes as Record<string, string> | undefined) ?? {}) });

/** Configuration of the realm's secret-rotation executor, if an enabled policy uses one. */
export function rotationPolicy(realm: RealmModel): { expiration: number; rotatedExpiration: number } | undefined {
  const policies = (realm.settings.clientPolicies as ClientPoliciesRepresentation | undefined)?.policies ?? [];
  const profiles = (realm.settings.clientProfiles as ClientProfilesRepresentation | undefined)?.profiles ?? [];
  const used = new Set(policies.filter((p) => p.enabled !== false).flatMap((p) => p.profiles ?? []));
  for (const profile of profiles.filter((p) => used.has(String(p.name)))) {
    const ex = (profile.executors ?? []).find((e) => e.executor === 'secret-rotation');
    if (!ex) continue;
    const conf = (ex.configuration ?? {}) as SecretRotationConfiguration;
    return {
      expiration: Number(conf['expiration-period'] ?? 2505600),
      rotatedExpiration: Number(conf['rotated-expiration-period'] ?? 172800),
    };
  }
  return undefined;
}

const credential = (value: string | null | undefined): Credential => (value ? { type: 'secret', value } : { type: 'secret' });

/** GET /clients/{id}/client-secret: `{type: "secret", value}` (view of the client). */
export async function getClientSecret(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<Credential> {
  await requireClientAccess(ctx, realm, client, 'view');
  return credential(client.publicClient || client.bearerOnly ? null : client.secret);
}

/** POST /clients/{id}/client-secret: stores and returns a new secret (configure of the client); rotates under a policy. */
export async function regenerateClientSecret(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<Credential> {
  await requireClientAccess(ctx, realm, client, 'configure');
  const attrs = attrsOf(client);
  const secret = generateSecret(String(client.settings.clientAuthenticatorType ?? 'client-secret'), attrs);
  const now = nowSeconds();
  const policy = rotationPolicy(realm);
  if (policy && client.secret) {
    attrs[ROTATED] = client.secret;
    attrs[ROTATED_CREATED] = attrs[CREATED] ?? String(now);
    attrs[ROTATED_EXPIRES] = String(now + policy.rotatedExpiration);
    attrs[EXPIRES] = String(now + policy.expiration);
  }
  attrs[CREATED] = String(now);
  await saveClient(
    ctx,
    realm,
    client,
    { secret, settings: { ...client.settings, attributes: attrs } },
    {
      operationType: 'ACTION',
      resourceType: 'CLIENT',
      resourcePath: `clients/${client.id}/client-secret`,
    },
  );
  return { type: 'secret', value: secret };
}

/** GET /clients/{id}/client-secret/rotated: the rotated secret, or 404 `Client does not have a rotated secret`. */
export async function getRotatedSecret(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<Credential> {
  await requireClientAccess(ctx, realm, client, 'view');
  const rotated = attrsOf(client)[ROTATED];
  if (!rotated) throw notFound('Client does not have a rotated secret');
  return { type: 'secret', value: rotated };
}

/** DELETE /clients/{id}/client-secret/rotated: forgets the rotated secret (idempotent; configure of the client). */
export async function removeRotatedSecret(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<void> {
  await requireClientAccess(ctx, realm, client, 'configure');
  const attrs = attrsOf(client);
  for (const k of [ROTATED, ROTATED_CREATED, ROTATED_EXPIRES]) delete attrs[k];
  await saveClient(
    ctx,
    realm,
    client,
    { settings: { ...client.settings, attributes: attrs } },
    {
      operationType: 'ACTION',
      resourceType: 'CLIENT',
      resourcePath: `clients/${client.id}/client-secret/rotated`,
    },
  );
}

/**
 * POST /clients/{id}/registration-access-token: a new HS512-signed token (its `jti` stored on the
 * client, invalidating the previous one); returns the ClientRepresentation with `registrationAccessToken`.
 */
export async function issueRegistrationAccessToken(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
): Promise<ClientRepresentation> {
  await requireClientAccess(ctx, realm, client, 'manage');
  const key = activeKey(await realmKeys(ctx.db, realm), 'HS512');
  if (!key?.secret) throw errorC(500, 'No active HMAC key');
  const jti = randomBytes(16).toString('hex');
  const iss = `${ctx.baseUrl}/realms/${encodeURIComponent(realm.name)}`;
  const token = await new SignJWT({
    jti,
    typ: 'RegistrationAccessToken',
    iat: nowSeconds(),
    exp: 0,
    iss,
    aud: iss,
    registration_auth: 'authenticated',
  })
    .setProtectedHeader({ alg: 'HS512', typ: 'JWT', kid: key.kid })
    .sign(key.secret);
  await saveClient(
    ctx,
    realm,
    client,
    { settings: { ...client.settings, registrationAccessTokenJti: jti } },
    {
      operationType: 'ACTION',
      resourceType: 'CLIENT',
      resourcePath: `clients/${client.id}/registration-access-token`,
    },
  );
  const fresh = await ctx.loaders.clientById.load(client.id);
  const [rep] = await clientRepresentations(ctx, realm, [fresh as ClientModel]);
  return { ...rep, registrationAccessToken: token };
}
