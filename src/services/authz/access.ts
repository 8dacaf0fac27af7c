import { hasAny } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import { cannotParse, errorC, forbidden } from '../../core/errors';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { ResourceServerModel } from '../../db/models/authorization';
import { type AdminEventInput, recordAdminEvent } from '../../core/admin-events';

/**
 * What every authorization-services endpoint shares: the caller's rights (Keycloak's
 * RealmPermissions: view = view-authorization or manage-authorization; manage = manage-authorization
 * or manage-clients), the resource server of a client (404 when authorization services are not
 * enabled on it), and the admin event of a write.
 */

/** The resource server under `/clients/{id}/authz/resource-server`, and what the caller may do with it. */
export interface AuthzTarget {
  realm: RealmModel;
  client: ClientModel;
  rs: ResourceServerModel;
}

/** Keycloak's answer for an unknown resource, scope or policy id: 404 without a message of its own. */
export const authzNotFound = () => errorC(404, 'HTTP 404 Not Found');

/** Keycloak's 400 with no body of its own (a search without `name`, an empty body). */
export const plainBadRequest = () => errorC(400, 'HTTP 400 Bad Request');

/** 403 unless the caller may view authorization settings (view-authorization, manage-authorization). */
export async function requireViewAuthz(ctx: RequestContext, realm: RealmModel): Promise<void> {
  if (!(await hasAny(ctx, realm, 'view-authorization', 'manage-authorization'))) throw forbidden();
}

/** 403 unless the caller may manage authorization settings (manage-authorization, manage-clients). */
export async function requireManageAuthz(ctx: RequestContext, realm: RealmModel): Promise<void> {
  if (!(await hasAny(ctx, realm, 'manage-authorization', 'manage-clients'))) throw forbidden();
}

/** The client's resource server, or 404 when authorization services are not enabled on the client. */
export async function resourceServerOf(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<AuthzTarget> {
  const rs = await ctx.db.models.ResourceServer.findByPk(client.id);
  if (!rs) throw authzNotFound();
  return { realm, client, rs };
}

/** `clients/{id}/authz/resource-server[/suffix]`: the admin event path of an authorization write. */
export const authzPath = (t: AuthzTarget, suffix = '') => `clients/${t.client.id}/authz/resource-server${suffix ? `/${suffix}` : ''}`;

/** Records the admin event of an authorization write (inside its transaction). */
export function authzEvent(ctx: RequestContext, t: AuthzTarget, e: AdminEventInput): Promise<void> {
  return recordAdminEvent(ctx, t.realm, e);
}

/** A body that must be a JSON object (Keycloak's Jackson mapping: anything else cannot be read). */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) throw plainBadRequest();
  if (typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
  return body as Record<string, unknown>;
}

/** Jackson's 400 for a body it cannot map onto the representation. */
export const cannotRead = () => cannotParse('mapping');

/** A string field of a body (numbers and booleans as Jackson coerces them); objects cannot be read. */
export function textField(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'object') throw cannotParse('mapping');
  return String(v);
}

/** An enum field (decisionStrategy, logic, policyEnforcementMode): an unknown constant cannot be read. */
export function enumField<T extends string>(body: Record<string, unknown>, key: string, values: readonly T[]): T | undefined {
  const v = textField(body, key);
  if (v === undefined) return undefined;
  if (!(values as readonly string[]).includes(v)) throw cannotParse('mapping');
  return v as T;
}

/** A list of strings (a single string is a list of one, as Jackson accepts it). */
export function listField(body: Record<string, unknown>, key: string): string[] | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  const items = Array.isArray(v) ? v : [v];
  return items.map((x) => {
    if (x !== null && typeof x === 'object') throw cannotParse('mapping');
    return String(x);
  });
}

export const DECISION_STRATEGIES = ['UNANIMOUS', 'AFFIRMATIVE', 'CONSENSUS'] as const;
export const LOGICS = ['POSITIVE', 'NEGATIVE'] as const;
export const ENFORCEMENT_MODES = ['ENFORCING', 'PERMISSIVE', 'DISABLED'] as const;
