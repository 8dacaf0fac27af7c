import { randomUUID } from 'node:crypto';
import type { EventTypeName } from '../keycloak/event-types';
import type { Db } from '../db';
import type { RealmModel } from '../db/models/realm';
import { NOT_SAVED_BY_DEFAULT } from '../keycloak/event-types';
import { notifyUserEvent } from './event-listeners';

/**
 * User (login) events (reference §7): the token endpoint and account actions call `recordEvent`.
 * Stored only when the realm has `eventsEnabled` and the type is enabled: listed in
 * `enabledEventTypes`, or, when that list is empty, one of the types Keycloak saves by default.
 */
export interface UserEventInput {
  type: EventTypeName;
  clientId?: string | null;
  userId?: string | null;
  sessionId?: string | null;
  ipAddress?: string | null;
  error?: string | null;
  details?: Record<string, string>;
}

/** True when events of this type are stored for the realm. */
export function eventTypeEnabled(realm: RealmModel, type: string): boolean {
  if (!(realm.settings.eventsEnabled === true || realm.settings.eventsEnabled === 'true')) return false;
  const enabled = realm.settings.enabledEventTypes;
  if (Array.isArray(enabled) && enabled.length) return enabled.includes(type);
  return !NOT_SAVED_BY_DEFAULT.has(type);
}

/**
 * Records a user event if the realm stores events of that type, and hands it to the realm's event
 * listeners whether stored or not (core/event-listeners.ts).
 */
export async function recordEvent(db: Db, realm: RealmModel, e: UserEventInput): Promise<void> {
  const row = {
    id: randomUUID(),
    realmId: realm.id,
    time: Date.now(),
    type: e.type,
    clientId: e.clientId ?? null,
    userId: e.userId ?? null,
    sessionId: e.sessionId ?? null,
    ipAddress: e.ipAddress ?? null,
    error: e.error ?? null,
    details: e.details ?? {},
  };
  if (eventTypeEnabled(realm, e.type)) await db.models.Event.create(row);
  notifyUserEvent(db, realm, { ...row, realmName: realm.name });
}
