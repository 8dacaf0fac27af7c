/**
 * The one option table of the server. Every option is `--name=value` on the command line,
 * `IDSERVER_NAME` in the environment (dashes become underscores, upper case) and `name=value`
 * in `conf/idserver.conf`. Precedence: command line > environment > file > default.
 */
import { loggingOptions, validateLogLevel } from '../logging/options';
import { eventListenerOptions } from './event-listener-options';
import { graphqlOptions } from './graphql-options';
import { x509Options } from './x509-options';
import { cibaOptions } from './ciba-options';
import type { OptionSpec } from './option-spec';

export type { OptionSpec };

export const parsers = {
  string: (raw: string) => raw,
  nonEmpty: (raw: string) => {
    if (raw.trim() === '') throw new Error('must not be empty');
    return raw;
  },
  int:
    (min: number, max: number) =>
    (raw: string): number => {
      if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be an integer between ${min} and ${max}`);
      const n = Number(raw.trim());
      if (n < min || n > max) throw new Error(`must be an integer between ${min} and ${max}`);
      return n;
    },
  bool: (raw: string): boolean => {
    const v = raw.trim().toLowerCase();
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw new Error('must be true or false');
  },
  /**
   * The server's public address: a URL (`https://id.example.com`, `http://host:8080/auth`) or a bare
   * host name, which means https on the default port (Keycloak 26 reads `--hostname` the same way).
   * Returned without a trailing slash; a query, a fragment or another scheme is refused.
   */
  publicUrl: (raw: string): string => {
    const text = raw.trim();
    if (text === '') throw new Error('must not be empty');
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    } catch {
      throw new Error('must be a URL such as https://id.example.com or a host name');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must be an http or https URL');
    if (url.search || url.hash || url.username || url.password) throw new Error('must not carry a query, a fragment or credentials');
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  },
  oneOf:
    <T extends string>(...allowed: T[]) =>
    (raw: string): T => {
      const v = raw.trim().toLowerCase() as T;
      if (!allowed.includes(v)) throw new Error(`must be one of: ${allowed.join(', ')}`);
      return v;
    },
};

const options = [
  {
    name: 'http-host',
    group: 'HTTP',
    description: 'The address the HTTP listener binds to.',
    default: '0.0.0.0',
    parse: parsers.nonEmpty,
  },
  {
    name: 'http-port',
    group: 'HTTP',
    description: 'The port of the HTTP listener.',
    default: 8080,
    parse: parsers.int(0, 65535),
  },
  {
    name: 'hostname',
    group: 'HTTP',
    description:
      'Public address of the server, a URL or a host name (https assumed): the issuer of its tokens and the base of every link. Required by start unless --hostname-strict=false; start-dev uses the address of each request.',
    parse: parsers.publicUrl,
  },
  {
    name: 'hostname-strict',
    group: 'HTTP',
    description:
      'Refuse to start without --hostname. When false and no hostname is set, the issuer and links follow the Host header of each request, which a client controls: only behind a proxy that sets it.',
    default: true,
    devDefault: false,
    parse: parsers.bool,
  },
  {
    name: 'http-management-port',
    group: 'Management',
    description: 'The port of the management interface (metrics, health), separate from the public listener.',
    default: 9000,
    parse: parsers.int(0, 65535),
  },
  {
    name: 'health-enabled',
    group: 'Health',
    description: 'Serve /health, /health/live and /health/ready on the management interface.',
    default: false,
    parse: parsers.bool,
  },
  {
    name: 'shutdown-timeout',
    group: 'HTTP',
    description: 'On SIGTERM or SIGINT, how long requests in flight may take to finish before their connections are closed, in seconds.',
    default: 30,
    parse: parsers.int(0, 3600),
  },
  {
    name: 'metrics-enabled',
    group: 'Metrics',
    description: 'Serve Prometheus metrics at /metrics on the management interface.',
    default: false,
    parse: parsers.bool,
  },
  {
    name: 'db',
    group: 'Database',
    description: 'The database vendor: sqlite, mysql or mariadb.',
    default: 'sqlite',
    parse: parsers.oneOf('sqlite', 'mysql', 'mariadb'),
  },
  {
    name: 'db-url',
    group: 'Database',
    description: 'The database location: a file path for sqlite (default data/idserver.sqlite), or mysql://host:port/database.',
    parse: parsers.nonEmpty,
  },
  {
    name: 'db-username',
    group: 'Database',
    description: 'The database user name.',
    parse: parsers.string,
  },
  {
    name: 'db-password',
    group: 'Database',
    description: 'The database password.',
    parse: parsers.string,
    secret: true,
  },
  {
    name: 'db-pool-max',
    group: 'Database',
    description: 'The maximum size of the connection pool.',
    default: 10,
    parse: parsers.int(1, 1000),
  },
  {
    name: 'log-level',
    group: 'Logging',
    description:
      'The root level, optionally followed by category levels: info,idserver.db:debug. Levels: FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL, OFF (case-insensitive).',
    default: 'info',
    parse: validateLogLevel,
  },
  {
    name: 'bootstrap-admin-username',
    group: 'Bootstrap',
    description: 'User name of the bootstrap admin created in the master realm on an empty database.',
    devDefault: 'admin',
    parse: parsers.nonEmpty,
  },
  {
    name: 'bootstrap-admin-password',
    group: 'Bootstrap',
    description: 'Password of the bootstrap admin.',
    devDefault: 'admin',
    parse: parsers.nonEmpty,
    secret: true,
  },
] as const satisfies readonly OptionSpec[];

/** Options registered by other modules (logging, later features) are appended here. */
export const optionTable: OptionSpec[] = [...options];

export function registerOptions(specs: OptionSpec[]): void {
  for (const s of specs) {
    if (!optionTable.some((o) => o.name === s.name)) optionTable.push(s);
  }
}

registerOptions(loggingOptions);
registerOptions(graphqlOptions);
registerOptions(eventListenerOptions);
registerOptions(x509Options);
registerOptions(cibaOptions);
registerOptions([
  {
    name: 'graphql-ui',
    group: 'GraphQL',
    description:
      'Serve the GraphiQL page at /graphql to browsers (static, from the installed package; every query it sends still needs a bearer token).',
    default: false,
    devDefault: true,
    parse: parsers.bool,
  },
]);

export const envName = (option: string) => `IDSERVER_${option.toUpperCase().replace(/-/g, '_')}`;
