import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { requireCap } from '../../auth/permissions';
import type { ClientInitialAccessModel } from '../../db/models/client-initial-access';
import type { RealmModel } from '../../db/models/realm';
import { errorB, serverError } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';

/**
 * Client initial access — `/clients-initial-access` (config reference §10.3). A row records issue
 * time, lifetime and uses; the token is an HS512 JWT (`typ` InitialAccessToken, `jti` = the row id)
 * signed with the realm's HMAC key, returned once at creation and never stored. Expired entries are
 * not listed. Permissions: list = view-clients, create/delete = manage-clients.
 */

/** Keycloak's ClientInitialAccessPresentation. */
export interface ClientInitialAccessRep {
  id: string;
  token?: string;
  timestamp: number;
  expiration: number;
  count: number;
  remainingCount: number;
}

/** Keycloak's ClientInitialAccessCreatePresentation. */
export interface ClientInitialAccessInput {
  expiration?: number | null;
  count?: number | null;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

const toRep = (m: ClientInitialAccessModel): ClientInitialAccessRep => ({
  id: m.id,
  timestamp: Number(m.timestamp),
  expiration: Number(m.expiration),
  count: Number(m.count),
  remainingCount: Number(m.remainingCount),
});

const expired = (m: ClientInitialAccessModel, now: number) => m.expiration > 0 && Number(m.timestamp) + Number(m.expiration) < now;

/** The realm's unexpired initial access entries, without tokens (GET /clients-initial-access). */
export async function listClientInitialAccess(ctx: RequestContext, realm: RealmModel): Promise<ClientInitialAccessRep[]> {
  await requireCap(ctx, realm, 'viewClients');
  const rows = await ctx.db.models.ClientInitialAccess.findAll({
    where: { realmId: realm.id },
    order: [
      ['timestamp', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  const now = nowSeconds();
  return rows.filter((m) => !expired(m, now)).map(toRep);
}

/** Creates an initial access entry and returns it with its token (POST /clients-initial-access). */
export async function createClientInitialAccess(
  ctx: RequestContext,
  realm: RealmModel,
  input: ClientInitialAccessInput = {},
): Promise<ClientInitialAccessRep> {
  await requireCap(ctx, realm, 'manageClients');
  const expiration = input.expiration ?? 0;
  const count = input.count ?? 1;
  if (expiration < 0) throw errorB(400, 'Invalid value for expiration', 'The expiration time interval cannot be less than 0');
  if (count < 0) throw errorB(400, 'Invalid value for count', 'The count cannot be less than 0');
  const key = activeKey(await realmKeys(ctx.db, realm), 'HS512');
  if (!key?.secret) throw serverError();
  const id = randomUUID();
  const timestamp = nowSeconds();
  const issuer = issuerOf(ctx.baseUrl, realm.name);
  const token = await new SignJWT({
    exp: expiration > 0 ? timestamp + expiration : 0,
    iat: timestamp,
    jti: id,
    iss: issuer,
    aud: issuer,
    typ: 'InitialAccessToken',
  })
    .setProtectedHeader({ alg: 'HS512', typ: 'JWT', kid: key.kid })
    .sign(key.secret);
  const rep = { id, token, timestamp, expiration, count, remainingCount: count };
  await ctx.db.transaction(async () => {
    await ctx.db.models.ClientInitialAccess.create({ id, realmId: realm.id, timestamp, expiration, count, remainingCount: count });
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'CLIENT_INITIAL_ACCESS_MODEL',
      resourcePath: `clients-initial-access/${id}`,
      representation: { expiration: input.expiration, count: input.count },
    });
  });
  return rep;
}

/** Deletes an initial access entry; unknown ids are no error (DELETE /clients-initial-access/{id}). */
export async function deleteClientInitialAccess(ctx: RequestContext, realm: RealmModel, id: string): Promise<void> {
  await requireCap(ctx, realm, 'manageClients');
  await ctx.db.transaction(async () => {
    await ctx.db.models.ClientInitialAccess.destroy({ where: { id, realmId: realm.id } });
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'CLIENT_INITIAL_ACCESS_MODEL',
      resourcePath: `clients-initial-access/${id}`,
    });
  });
}
