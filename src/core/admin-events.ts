import { randomUUID } from 'node:crypto';
import { insertChunked } from '../db/bulk-insert';
import type { RealmModel } from '../db/models/realm';
import type { ResourceTypeName } from '../keycloak/event-types';
import type { RequestContext } from './context';
import { notifyAdminEvent } from './event-listeners';

/**
 * Admin events (reference §1.11, §7, Appendix D). Every admin write calls `recordAdminEvent`
 * from its service function — so REST and GraphQL writes alike are recorded — inside the write's
 * transaction. A row is stored only when the realm has `adminEventsEnabled`; the representation
 * only when `adminEventsDetailsEnabled`. Never pass secrets or passwords as the representation.
 */
export type OperationType = 'CREATE' | 'UPDATE' | 'DELETE' | 'ACTION';

export interface AdminEventInput {
  operationType: OperationType;
  /** REALM, REALM_ROLE, USER, GROUP, GROUP_MEMBERSHIP, CLIENT, ... (reference §7.2). */
  resourceType: ResourceTypeName;
  /** Path relative to `/admin/realms/{realm}/`, e.g. `users/<id>`; undefined for the realm itself. */
  resourcePath?: string;
  /** The request body (serialised to JSON text when details are enabled). */
  representation?: unknown;
  details?: Record<string, string>;
  error?: string;
  /** Store even though the realm has admin events disabled (events/config turning them off). */
  force?: boolean;
}

const flag = (v: unknown) => v === true || v === 'true';

/**
 * Records an admin event for `realm` if the realm has admin events enabled, and hands it to the
 * realm's event listeners whether stored or not (core/event-listeners.ts).
 */
export async function recordAdminEvent(ctx: RequestContext, realm: RealmModel, e: AdminEventInput): Promise<void> {
  const row = adminEventRow(ctx, realm, e);
  if (e.force || flag(realm.settings.adminEventsEnabled)) await ctx.db.models.AdminEvent.create(row);
  listen(ctx, realm, row);
}

/** Records many admin events of `realm` (if it has them enabled) with one INSERT per 500 (partial import). */
export async function recordAdminEvents(ctx: RequestContext, realm: RealmModel, events: AdminEventInput[]): Promise<void> {
  const all = events.map((e) => ({ e, row: adminEventRow(ctx, realm, e) }));
  const rows = all.filter(({ e }) => e.force || flag(realm.settings.adminEventsEnabled)).map(({ row }) => row);
  await insertChunked(ctx.db.models.AdminEvent, rows);
  for (const { row } of all) listen(ctx, realm, row);
}

function listen(ctx: RequestContext, realm: RealmModel, row: ReturnType<typeof adminEventRow>): void {
  const event = { ...row, realmName: realm.name, authRealmName: ctx.actor?.realmName ?? null };
  notifyAdminEvent(ctx.db, realm, event, flag(realm.settings.adminEventsDetailsEnabled));
}

function adminEventRow(ctx: RequestContext, realm: RealmModel, e: AdminEventInput) {
  const withDetails = flag(realm.settings.adminEventsDetailsEnabled);
  const a = ctx.actor;
  return {
    id: randomUUID(),
    realmId: realm.id,
    time: Date.now(),
    operationType: e.operationType,
    resourceType: e.resourceType,
    resourcePath: e.resourcePath ?? null,
    // Secrets are stripped here, once, whatever the caller passed.
    representation: withDetails && e.representation !== undefined ? JSON.stringify(stripSecrets(e.representation)) : null,
    error: e.error ?? null,
    details: e.details ?? null,
    authRealmId: a?.realmId ?? null,
    authClientId: a?.clientId ?? null,
    authUserId: a?.userId ?? null,
    ipAddress: a?.ipAddress ?? null,
  };
}

/** Records an admin event in the caller's realm (realm create and delete are recorded there, reference §7.4). */
export async function recordAdminEventInCallerRealm(ctx: RequestContext, e: AdminEventInput): Promise<void> {
  if (!ctx.actor) return;
  const realm = await ctx.db.models.Realm.findByPk(ctx.actor.realmId);
  if (realm) await recordAdminEvent(ctx, realm, e);
}

/** Keys whose values are secrets wherever they appear in a representation. */
const SECRET_KEYS = new Set([
  'secret',
  'password',
  'clientSecret',
  'authTokenClientSecret',
  'privateKey',
  'secretData',
  'registrationAccessToken',
]);

/**
 * A deep copy of a representation without secrets, for `representation`: credential values (also
 * of users inside a realm import), client secrets, SMTP and IdP passwords, private keys.
 */
export function stripSecrets<T>(rep: T, inCredentials = false): T {
  if (Array.isArray(rep)) return rep.map((x) => stripSecrets(x, inCredentials)) as T;
  if (!rep || typeof rep !== 'object') return rep;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rep as Record<string, unknown>)) {
    if (SECRET_KEYS.has(k) && typeof v === 'string') out[k] = '**********';
    else if (inCredentials && (k === 'value' || k === 'hashedSaltedValue')) continue;
    else out[k] = stripSecrets(v, k === 'credentials');
  }
  return out as T;
}

/** `roles/{name}`, `clients/{uuid}/roles/{name}` or `roles-by-id/{id}`: how the request named a role. */
export function roleResourcePath(loc: { name: string; clientUuid?: string } | { id: string }): string {
  if ('id' in loc) return `roles-by-id/${loc.id}`;
  return loc.clientUuid ? `clients/${loc.clientUuid}/roles/${loc.name}` : `roles/${loc.name}`;
}

/** REALM_ROLE or CLIENT_ROLE. */
export const roleResourceType = (role: { clientId: string | null }) => (role.clientId ? 'CLIENT_ROLE' : 'REALM_ROLE');
