import type { AdminEventModel, EventModel } from '../db/models/event';
import type { RealmModel } from '../db/models/realm';
import { DEFAULT_ENABLED_EVENT_TYPES } from '../keycloak/event-types';
import type { Representation } from './schema';

/** Keycloak's EventRepresentation (a user event); absent fields are omitted. */
export type EventRepresentation = {
  id: string;
  time: number;
  type: string;
  realmId: string;
  clientId?: string;
  userId?: string;
  sessionId?: string;
  ipAddress?: string;
  error?: string;
  details: Record<string, string>;
};

/** Keycloak's AuthDetailsRepresentation: who performed an admin operation. */
export type AuthDetailsRepresentation = { realmId?: string; clientId?: string; userId?: string; ipAddress?: string };

/** Keycloak's AdminEventRepresentation; `representation` is the request body as JSON text. */
export type AdminEventRepresentation = {
  id: string;
  time: number;
  realmId: string;
  authDetails: AuthDetailsRepresentation;
  operationType: string;
  resourceType: string;
  resourcePath?: string;
  representation?: string;
  error?: string;
  details?: Record<string, string>;
};

export type EventsConfigRepresentation = Representation<'RealmEventsConfigRepresentation'>;

/** Keycloak's EventRepresentation (field order as measured). */
export function toEventRepresentation(e: EventModel): EventRepresentation {
  const out: Partial<EventRepresentation> = { id: e.id, time: Number(e.time), type: e.type, realmId: e.realmId };
  if (e.clientId != null) out.clientId = e.clientId;
  if (e.userId != null) out.userId = e.userId;
  if (e.sessionId != null) out.sessionId = e.sessionId;
  if (e.ipAddress != null) out.ipAddress = e.ipAddress;
  if (e.error != null) out.error = e.error;
  out.details = e.details ?? {};
  return out as EventRepresentation;
}

/** Keycloak's AdminEventRepresentation (field order as measured). */
export function toAdminEventRepresentation(e: AdminEventModel): AdminEventRepresentation {
  const auth: AuthDetailsRepresentation = {};
  if (e.authRealmId != null) auth.realmId = e.authRealmId;
  if (e.authClientId != null) auth.clientId = e.authClientId;
  if (e.authUserId != null) auth.userId = e.authUserId;
  if (e.ipAddress != null) auth.ipAddress = e.ipAddress;
  const out: AdminEventRepresentation = {
    id: e.id,
    time: Number(e.time),
    realmId: e.realmId,
    authDetails: auth,
    operationType: e.operationType,
    resourceType: e.resourceType,
  };
  if (e.resourcePath != null) out.resourcePath = e.resourcePath;
  if (e.representation != null) out.representation = e.representation;
  if (e.error != null) out.error = e.error;
  if (e.details && Object.keys(e.details).length) out.details = e.details;
  return out;
}

const flag = (v: unknown) => v === true || v === 'true';

/** The RealmEventsConfigRepresentation of a realm's settings (defaults filled in, as Keycloak answers). */
export function toEventsConfigRepresentation(realm: RealmModel): EventsConfigRepresentation {
  const s = realm.settings;
  const out: EventsConfigRepresentation = { eventsEnabled: flag(s.eventsEnabled) };
  const expiration = Number(s.eventsExpiration ?? 0);
  if (expiration > 0) out.eventsExpiration = expiration;
  out.eventsListeners = Array.isArray(s.eventsListeners) ? (s.eventsListeners as string[]) : ['jboss-logging'];
  const types = Array.isArray(s.enabledEventTypes) ? (s.enabledEventTypes as string[]) : [];
  out.enabledEventTypes = types.length ? types : [...DEFAULT_ENABLED_EVENT_TYPES];
  out.adminEventsEnabled = flag(s.adminEventsEnabled);
  out.adminEventsDetailsEnabled = flag(s.adminEventsDetailsEnabled);
  return out;
}
