import type { OptionSpec } from './option-spec';

/**
 * Options of the event listeners a realm can name in `eventsListeners` (group "Event listeners" in
 * --help). They carry Keycloak's names for the same settings (`--spi-events-listener-jboss-logging-*`,
 * `--spi-events-listener-email-*`), so a Keycloak start command's listener options work unchanged.
 */
export type ListenerLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

export interface EventListenerConfig {
  jbossLogging: {
    /** Level of a successful event's line (default debug). */
    successLevel: ListenerLevel;
    /** Level of an error event's line (default warn). */
    errorLevel: ListenerLevel;
    /** Line breaks and other odd white space in values become spaces, and quotes inside a value are escaped. */
    sanitize: boolean;
    /** One character around every value, or null for none. */
    quotes: string | null;
    /** Admin lines carry `representation` (when the realm also stores admin event details). */
    includeRepresentation: boolean;
  };
  email: {
    /** Event types that send a mail; undefined = Keycloak's default set. */
    includeEvents?: string[];
    /** Event types taken out of the set. */
    excludeEvents: string[];
  };
}

export const EVENT_LISTENER_DEFAULTS: EventListenerConfig = {
  jbossLogging: { successLevel: 'debug', errorLevel: 'warn', sanitize: true, quotes: '"', includeRepresentation: false },
  email: { excludeEvents: [] },
};

const LEVELS: ListenerLevel[] = ['debug', 'error', 'fatal', 'info', 'trace', 'warn'];

const level = (raw: string): ListenerLevel => {
  const v = raw.trim().toLowerCase() as ListenerLevel;
  if (!LEVELS.includes(v)) throw new Error(`must be one of: ${LEVELS.join(', ')}`);
  return v;
};

const bool = (raw: string): boolean => {
  const v = raw.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new Error('must be true or false');
};

/** `"`, `'` or any single character; `none` for no quotes. */
const quotes = (raw: string): string => {
  if (raw.toLowerCase() === 'none') return 'none';
  if ([...raw].length !== 1) throw new Error('must be one character (such as " or \') or none');
  return raw;
};

/** A comma-separated list of event type names (LOGIN_ERROR, update_password, ...), upper-cased. */
const eventList = (raw: string): string[] => {
  const names = raw
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  for (const n of names) if (!/^[A-Z0-9_]+$/.test(n)) throw new Error(`'${n}' is not an event type name`);
  return names;
};

const G = 'Event listeners';
const JB = 'spi-events-listener-jboss-logging';
const EM = 'spi-events-listener-email';

export const eventListenerOptions: OptionSpec[] = [
  {
    name: `${JB}-success-level`,
    group: G,
    description: 'jboss-logging: level of the line of a successful event (category org.keycloak.events).',
    default: EVENT_LISTENER_DEFAULTS.jbossLogging.successLevel,
    parse: level,
  },
  {
    name: `${JB}-error-level`,
    group: G,
    description: 'jboss-logging: level of the line of an error event.',
    default: EVENT_LISTENER_DEFAULTS.jbossLogging.errorLevel,
    parse: level,
  },
  {
    name: `${JB}-sanitize`,
    group: G,
    description: 'jboss-logging: turn line breaks and other white space in values into spaces and escape the quote character.',
    default: EVENT_LISTENER_DEFAULTS.jbossLogging.sanitize,
    parse: bool,
  },
  {
    name: `${JB}-quotes`,
    group: G,
    description: 'jboss-logging: the character put around every value (" by default), or none.',
    default: '"',
    parse: quotes,
  },
  {
    name: `${JB}-include-representation`,
    group: G,
    description: 'jboss-logging: admin event lines carry the representation (secrets removed) when the realm stores admin event details.',
    default: EVENT_LISTENER_DEFAULTS.jbossLogging.includeRepresentation,
    parse: bool,
  },
  {
    name: `${EM}-include-events`,
    group: G,
    description:
      'email: the event types that send a mail to the user, comma-separated (default LOGIN_ERROR, UPDATE_PASSWORD, REMOVE_TOTP, UPDATE_TOTP, UPDATE_CREDENTIAL, REMOVE_CREDENTIAL).',
    parse: eventList,
  },
  {
    name: `${EM}-exclude-events`,
    group: G,
    description: 'email: event types that send no mail, comma-separated (taken out of the included ones).',
    parse: eventList,
  },
];

/** The listener settings of resolved option values (defaults for those not given). */
export function eventListenerConfigFromValues(values: Record<string, unknown>): EventListenerConfig {
  const d = EVENT_LISTENER_DEFAULTS;
  const q = values[`${JB}-quotes`];
  return {
    jbossLogging: {
      successLevel: (values[`${JB}-success-level`] as ListenerLevel | undefined) ?? d.jbossLogging.successLevel,
      errorLevel: (values[`${JB}-error-level`] as ListenerLevel | undefined) ?? d.jbossLogging.errorLevel,
      sanitize: (values[`${JB}-sanitize`] as boolean | undefined) ?? d.jbossLogging.sanitize,
      quotes: q === undefined ? d.jbossLogging.quotes : q === 'none' ? null : String(q),
      includeRepresentation: (values[`${JB}-include-representation`] as boolean | undefined) ?? d.jbossLogging.includeRepresentation,
    },
    email: {
      includeEvents: values[`${EM}-include-events`] as string[] | undefined,
      excludeEvents: (values[`${EM}-exclude-events`] as string[] | undefined) ?? [],
    },
  };
}
