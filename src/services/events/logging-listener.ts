import type { EventListenerConfig } from '../../config/event-listener-options';
import type { EventListener, ListenedAdminEvent, ListenedUserEvent } from '../../core/event-listeners';
import { getLogger } from '../../logging';

/**
 * The `jboss-logging` event listener: one line per event under Keycloak's category
 * `org.keycloak.events`, so `--log-level=...,org.keycloak.events:debug`, the JSON console output and
 * GELF apply to events as to any other line. Successful events log at the success level (DEBUG by
 * default, so they are not seen at the default INFO), errors at the error level (WARN). The line is
 * Keycloak's `key=value` list, each value in quotes:
 *
 *   type="LOGIN", realmId="…", realmName="acme", clientId="app", userId="…", sessionId="…",
 *   ipAddress="127.0.0.1", auth_method="openid-connect", grant_type="password", …
 *
 *   operationType="CREATE", realmId="<caller's realm id>", realmName="master", clientId="<client uuid>",
 *   userId="…", ipAddress="…", resourceType="USER", resourcePath="users/…"
 *
 * Sanitizing turns line breaks and other odd white space into spaces and escapes the quote
 * character inside a value, so a value can neither end the line nor its own quotes. Events never
 * carry passwords or secrets (token events name token ids, not tokens; admin representations are
 * stripped of secrets before they are stored or passed here), and an admin representation is only
 * written with the include-representation option when the realm stores admin event details.
 */
export const EVENTS_CATEGORY = 'org.keycloak.events';

/** White space other than the plain space (Java's Character.isWhitespace, and the no-break space). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the separators U+001C-U+001F are white space to Java and are replaced on purpose
const ODD_SPACE = /[\t\n\v\f\r\u001C-\u001F\u00A0\u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]/g;

export function jbossLoggingListener(cfg: EventListenerConfig['jbossLogging']): EventListener {
  const log = getLogger(EVENTS_CATEGORY);
  const q = cfg.quotes ?? '';
  const escapeQuote = cfg.quotes ? new RegExp(cfg.quotes.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : undefined;
  // A missing value is written as null in quotes, as Keycloak writes it.
  const value = (v: string | null | undefined): string => {
    let s = v ?? 'null';
    if (cfg.sanitize && v) {
      s = s.replace(ODD_SPACE, ' ');
      if (escapeQuote) s = s.replace(escapeQuote, `\\${cfg.quotes}`);
    }
    return `${q}${s}${q}`;
  };
  const key = (k: string) => k.replace(ODD_SPACE, ' ');
  const details = (parts: string[], d: Record<string, string> | null) => {
    if (d) for (const [k, v] of Object.entries(d)) parts.push(`${key(k)}=${value(v)}`);
  };

  return {
    onEvent(_db, _realm, e: ListenedUserEvent) {
      const level = e.error ? cfg.errorLevel : cfg.successLevel;
      if (!log.isLevelEnabled(level)) return;
      const parts = [
        `type=${value(e.type)}`,
        `realmId=${value(e.realmId)}`,
        `realmName=${value(e.realmName)}`,
        `clientId=${value(e.clientId)}`,
        `userId=${value(e.userId)}`,
      ];
      if (e.sessionId) parts.push(`sessionId=${value(e.sessionId)}`);
      parts.push(`ipAddress=${value(e.ipAddress)}`);
      if (e.error) parts.push(`error=${value(e.error)}`);
      details(parts, e.details);
      log.log(level, parts.join(', '));
    },
    onAdminEvent(_db, _realm, e: ListenedAdminEvent, includeRepresentation: boolean) {
      const level = e.error ? cfg.errorLevel : cfg.successLevel;
      if (!log.isLevelEnabled(level)) return;
      // Keycloak names the caller here: the realm, client and user of the admin's token.
      const parts = [
        `operationType=${value(e.operationType)}`,
        `realmId=${value(e.authRealmId)}`,
        `realmName=${value(e.authRealmName)}`,
        `clientId=${value(e.authClientId)}`,
        `userId=${value(e.authUserId)}`,
        `ipAddress=${value(e.ipAddress)}`,
        `resourceType=${value(e.resourceType)}`,
        `resourcePath=${value(e.resourcePath)}`,
      ];
      if (e.error) parts.push(`error=${value(e.error)}`);
      details(parts, e.details);
      if (includeRepresentation && cfg.includeRepresentation && e.representation) parts.push(`representation=${value(e.representation)}`);
      log.log(level, parts.join(', '));
    },
  };
}
