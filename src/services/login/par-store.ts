import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { nowSeconds } from '../../core/clock';
import type { Db } from '../../db';
import { fastSelect } from '../../db/fast-select';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';

/**
 * The pushed-authorization-request store (table `pushed_authz_request`, migration 0025; RFC 9126):
 * the parameters a client pushed, under the key of its `request_uri`, used once by the
 * authorization endpoint of any node (the row is deleted) and never after the realm's
 * `parRequestUriLifespan` (Keycloak's default 60 s). Expired rows are purged as requests are pushed.
 */
export const PAR_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** Whether a request_uri is one this server issued for a pushed request. */
export const isParRequestUri = (uri: string | undefined): uri is string => typeof uri === 'string' && uri.startsWith(PAR_PREFIX);

/** The realm's `parRequestUriLifespan` in seconds. */
export function parLifespan(realm: RealmModel): number {
  const raw = (realm.settings?.attributes as Record<string, unknown> | undefined)?.parRequestUriLifespan;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 60;
}

/** Keeps a pushed request's parameters; answers its request_uri and lifetime. */
export async function storePushedRequest(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  params: Record<string, string>,
): Promise<{ requestUri: string; expiresIn: number }> {
  const now = nowSeconds();
  const expiresIn = parLifespan(realm);
  const key = randomUUID();
  await db.sequelize.query('DELETE FROM pushed_authz_request WHERE expires_at < :now', { replacements: { now }, type: QueryTypes.DELETE });
  await db.sequelize.query(
    'INSERT INTO pushed_authz_request (id, realm_id, client_id, params, expires_at) VALUES (:id, :realmId, :clientId, :params, :exp)',
    {
      replacements: { id: key, realmId: realm.id, clientId: client.id, params: JSON.stringify(params), exp: now + expiresIn },
      type: QueryTypes.INSERT,
    },
  );
  return { requestUri: `${PAR_PREFIX}${key}`, expiresIn };
}

interface Row {
  client_id: string;
  params: string;
  expires_at: number | string;
}

const keyOf = (requestUri: string) => requestUri.slice(PAR_PREFIX.length);

/** A pushed request's client (its id) and parameters, without using it up (secure-par-content's look). */
export async function peekPushedRequest(
  db: Db,
  realm: RealmModel,
  requestUri: string,
): Promise<{ clientUuid: string; params: Record<string, string> } | undefined> {
  const [row] = await fastSelect<Row>(
    db.sequelize,
    'SELECT client_id, params, expires_at FROM pushed_authz_request WHERE id = :id AND realm_id = :realm',
    { id: keyOf(requestUri), realm: realm.id },
  );
  if (!row || Number(row.expires_at) < nowSeconds()) return undefined;
  return { clientUuid: row.client_id, params: JSON.parse(row.params) as Record<string, string> };
}

/**
 * Uses up a pushed request: its client and parameters, or the reason it cannot be used ("PAR not
 * found. not issued or used multiple times." / "PAR expired.", Keycloak's). Of two uses at once, one wins the delete.
 */
export async function consumePushedRequest(
  db: Db,
  realm: RealmModel,
  requestUri: string,
): Promise<{ clientUuid: string; params: Record<string, string> } | { problem: string }> {
  const key = keyOf(requestUri);
  const [row] = await fastSelect<Row>(
    db.sequelize,
    'SELECT client_id, params, expires_at FROM pushed_authz_request WHERE id = :id AND realm_id = :realm',
    { id: key, realm: realm.id },
  );
  const notFound = { problem: 'PAR not found. not issued or used multiple times.' };
  if (!row) return notFound;
  const deleted = await db.sequelize.query('DELETE FROM pushed_authz_request WHERE id = :id', {
    replacements: { id: key },
    type: QueryTypes.BULKDELETE,
  });
  if (Number(deleted) < 1) return notFound;
  if (Number(row.expires_at) < nowSeconds()) return { problem: 'PAR expired.' };
  return { clientUuid: row.client_id, params: JSON.parse(row.params) as Record<string, string> };
}

/** Forgets a pushed request (secure-par-content refuses its use). */
export async function removePushedRequest(db: Db, requestUri: string): Promise<void> {
  await db.sequelize.query('DELETE FROM pushed_authz_request WHERE id = :id', {
    replacements: { id: keyOf(requestUri) },
    type: QueryTypes.DELETE,
  });
}
