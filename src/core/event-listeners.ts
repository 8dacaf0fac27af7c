import type { Transaction } from 'sequelize';
import type { Db } from '../db';
import { als } from '../db/cls';
import type { RealmModel } from '../db/models/realm';
import { getLogger } from '../logging';

/**
 * The event listeners of a realm (`eventsListeners`, default `["jboss-logging"]`). Every user event
 * and admin event is handed to each listener the realm names, whether or not the realm stores
 * events (as Keycloak: listeners and the event store are independent). An event recorded inside a
 * transaction reaches the listeners once it commits (never for a rolled-back write). A listener can
 * neither fail nor delay the request: it runs after the fact, its errors are logged and dropped, and
 * slow work (mail) it starts is not awaited. Listeners are installed at start-up
 * (src/services/events/listeners.ts); an id without an installed listener is skipped.
 */
const log = getLogger('idserver.events.listeners');

/** A user (login) event as the listeners see it. */
export interface ListenedUserEvent {
  id: string;
  time: number;
  type: string;
  realmId: string;
  realmName: string;
  clientId: string | null;
  userId: string | null;
  sessionId: string | null;
  ipAddress: string | null;
  error: string | null;
  details: Record<string, string>;
}

/** An admin event as the listeners see it: `authRealmId` ... describe the caller. */
export interface ListenedAdminEvent {
  id: string;
  time: number;
  realmId: string;
  realmName: string;
  operationType: string;
  resourceType: string;
  resourcePath: string | null;
  /** JSON text with secrets removed; null unless the realm stores admin event details. */
  representation: string | null;
  error: string | null;
  details: Record<string, string> | null;
  authRealmId: string | null;
  authRealmName: string | null;
  authClientId: string | null;
  authUserId: string | null;
  ipAddress: string | null;
}

export interface EventListener {
  onEvent?(db: Db, realm: RealmModel, event: ListenedUserEvent): void;
  /** `includeRepresentation`: the realm stores admin event details (Keycloak's flag of the same name). */
  onAdminEvent?(db: Db, realm: RealmModel, event: ListenedAdminEvent, includeRepresentation: boolean): void;
}

const installed = new Map<string, EventListener>();

/** Installs (or replaces) the listener with this provider id. */
export function installEventListener(id: string, listener: EventListener): void {
  installed.set(id, listener);
}

/** The listener ids a realm names (Keycloak's default when it names none). */
export function realmListenerIds(realm: RealmModel): string[] {
  const ids = realm.settings.eventsListeners;
  return Array.isArray(ids) ? ids.map(String) : ['jboss-logging'];
}

/** Runs `fn` after the current transaction commits, or now when there is none. */
function afterCommit(fn: () => void): void {
  const t = als.getStore()?.get('transaction') as Transaction | undefined;
  if (t) t.afterCommit(fn);
  else fn();
}

function each(realm: RealmModel, call: (l: EventListener, id: string) => void): void {
  const ids = realmListenerIds(realm);
  if (!ids.length) return;
  afterCommit(() => {
    for (const id of ids) {
      const l = installed.get(id);
      if (!l) continue;
      try {
        call(l, id);
      } catch (e) {
        log.error(`Event listener '${id}' failed: ${(e as Error).message}`);
      }
    }
  });
}

/** Hands a user event to the realm's listeners (after the commit of the current transaction, if any). */
export function notifyUserEvent(db: Db, realm: RealmModel, event: ListenedUserEvent): void {
  each(realm, (l) => l.onEvent?.(db, realm, event));
}

/** Hands an admin event to the realm's listeners (after the commit of the current transaction, if any). */
export function notifyAdminEvent(db: Db, realm: RealmModel, event: ListenedAdminEvent, includeRepresentation: boolean): void {
  each(realm, (l) => l.onAdminEvent?.(db, realm, event, includeRepresentation));
}
