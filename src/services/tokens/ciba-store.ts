import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { Db } from '../../db';
import { fastSelect } from '../../db/fast-select';

/**
 * The CIBA request store (table `ciba_auth_request`, migration 0033; ADR 44): Keycloak's
 * OAuth2DeviceCodeModel / OAuth2DeviceUserCodeModel pair in its single-use store, as one row that any
 * node reads. The client's `auth_req_id` and the device's bearer token are kept as SHA-256 digests
 * only. Each function is one statement; the state changes are conditional updates, so of two
 * nodes racing (two polls, two callbacks, two exchanges) exactly one wins.
 */
export type CibaStatus = 'pending' | 'approved' | 'denied';

export interface CibaData {
  bindingMessage?: string;
  acrValues?: string;
  /** The callback's other members (Keycloak's additionalParams). */
  callbackParams?: Record<string, string>;
  /** The request's other parameters (Keycloak's additional request params, at most 5 of up to 200 characters). */
  requestParams?: Record<string, string>;
}

export interface CibaRow {
  id: string;
  realmId: string;
  clientId: string;
  userId: string;
  scope: string;
  status: CibaStatus;
  /** Ping mode: the client's notification token and the auth_req_id to name. */
  notification?: { token: string; authReqId: string };
  data: CibaData;
  expiresAt: number;
  channelExpiresAt: number;
  pollInterval: number;
}

export const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

interface RawRow {
  id: string;
  realm_id: string;
  client_id: string;
  user_id: string;
  scope: string;
  status: string;
  notification: string | null;
  data: string;
  expires_at: number | string;
  channel_expires_at: number | string;
  poll_interval: number | string;
}

const COLUMNS =
  'id, realm_id, client_id, user_id, scope, status, notification, data, expires_at, channel_expires_at, poll_interval FROM ciba_auth_request';

function fromRaw(r: RawRow | undefined): CibaRow | undefined {
  if (!r) return undefined;
  return {
    id: r.id,
    realmId: r.realm_id,
    clientId: r.client_id,
    userId: r.user_id,
    scope: r.scope,
    status: r.status as CibaStatus,
    notification: r.notification ? (JSON.parse(r.notification) as CibaRow['notification']) : undefined,
    data: JSON.parse(r.data) as CibaData,
    expiresAt: Number(r.expires_at),
    channelExpiresAt: Number(r.channel_expires_at),
    pollInterval: Number(r.poll_interval),
  };
}

/** Keeps a new pending request (rows past their purge time go first, at most 500 of them). */
export async function insertCibaRequest(db: Db, row: CibaRow & { resultId: string }, now: number): Promise<void> {
  const stale = await fastSelect<{ id: string }>(db.sequelize, 'SELECT id FROM ciba_auth_request WHERE purge_at < :now LIMIT 500', { now });
  if (stale.length) {
    await db.sequelize.query('DELETE FROM ciba_auth_request WHERE id IN (:ids)', {
      replacements: { ids: stale.map((s) => s.id) },
      type: QueryTypes.DELETE,
    });
  }
  await db.sequelize.query(
    `INSERT INTO ciba_auth_request (id, result_id, realm_id, client_id, user_id, scope, status, notification, data,
       expires_at, channel_expires_at, poll_interval, next_poll_at, purge_at)
     VALUES (:id, :resultId, :realmId, :clientId, :userId, :scope, 'pending', :notification, :data,
       :expiresAt, :channelExpiresAt, :pollInterval, 0, :purgeAt)`,
    {
      replacements: {
        id: row.id,
        resultId: digest(row.resultId),
        realmId: row.realmId,
        clientId: row.clientId,
        userId: row.userId,
        scope: row.scope,
        notification: row.notification ? JSON.stringify(row.notification) : null,
        data: JSON.stringify(row.data),
        expiresAt: row.expiresAt,
        channelExpiresAt: row.channelExpiresAt,
        pollInterval: row.pollInterval,
        purgeAt: row.expiresAt + row.pollInterval + 10,
      },
      type: QueryTypes.INSERT,
    },
  );
}

/** The request a client's `auth_req_id` names, in its realm. */
export async function cibaRequestByAuthReqId(db: Db, realmId: string, authReqId: string): Promise<CibaRow | undefined> {
  const [r] = await fastSelect<RawRow>(db.sequelize, `SELECT ${COLUMNS} WHERE id = :id AND realm_id = :realm`, {
    id: digest(authReqId),
    realm: realmId,
  });
  return fromRaw(r);
}

/** The request a device's bearer token names, in its realm. */
export async function cibaRequestByResultToken(db: Db, realmId: string, token: string): Promise<CibaRow | undefined> {
  const [r] = await fastSelect<RawRow>(db.sequelize, `SELECT ${COLUMNS} WHERE result_id = :id AND realm_id = :realm`, {
    id: digest(token),
    realm: realmId,
  });
  return fromRaw(r);
}

/** Keycloak's isPollingAllowed: true when the last allowed poll is at least `interval` seconds old (and marks this one). */
export async function claimPoll(db: Db, row: CibaRow, now: number): Promise<boolean> {
  const changed = await db.sequelize.query('UPDATE ciba_auth_request SET next_poll_at = :next WHERE id = :id AND next_poll_at <= :now', {
    replacements: { id: row.id, now, next: now + row.pollInterval },
    type: QueryTypes.BULKUPDATE,
  });
  return affected(changed) > 0;
}

/** Settles a pending request (the device's answer); false when it was no longer pending. */
export async function settleCibaRequest(db: Db, row: CibaRow, status: 'approved' | 'denied', data: CibaData): Promise<boolean> {
  const changed = await db.sequelize.query(
    "UPDATE ciba_auth_request SET status = :status, data = :data WHERE id = :id AND status = 'pending'",
    { replacements: { id: row.id, status, data: JSON.stringify(data) }, type: QueryTypes.BULKUPDATE },
  );
  return affected(changed) > 0;
}

/** Uses up an approved request (the token exchange); false when another exchange took it first. */
export async function consumeCibaRequest(db: Db, row: CibaRow): Promise<boolean> {
  const deleted = await db.sequelize.query("DELETE FROM ciba_auth_request WHERE id = :id AND status = 'approved'", {
    replacements: { id: row.id },
    type: QueryTypes.BULKDELETE,
  });
  return Number(deleted) > 0;
}

/** Forgets a request (a callback for a request that is no longer pending cancels it, as Keycloak's cancelRequest). */
export async function removeCibaRequest(db: Db, row: CibaRow): Promise<void> {
  await db.sequelize.query('DELETE FROM ciba_auth_request WHERE id = :id', { replacements: { id: row.id }, type: QueryTypes.DELETE });
}

/** Rows changed by an UPDATE, across the SQLite and MySQL dialects' result shapes. */
function affected(result: unknown): number {
  if (Array.isArray(result)) {
    const [, meta] = result as [unknown, unknown];
    if (typeof meta === 'number') return meta;
    const m = meta as { affectedRows?: number; changes?: number } | undefined;
    return Number(m?.affectedRows ?? m?.changes ?? 0);
  }
  return Number(result ?? 0);
}
