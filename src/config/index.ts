import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { envName, optionTable, type OptionSpec } from './options';

export type Mode = 'start' | 'start-dev';

export interface ServerConfig {
  mode: Mode;
  httpHost: string;
  httpPort: number;
  httpManagementPort: number;
  metricsEnabled: boolean;
  healthEnabled: boolean;
  shutdownTimeout: number;
  hostname?: string;
  hostnameStrict: boolean;
  db: 'sqlite' | 'mysql' | 'mariadb';
  dbUrl?: string;
  dbUsername?: string;
  dbPassword?: string;
  dbPoolMax: number;
  logLevel: string;
  bootstrapAdminUsername?: string;
  bootstrapAdminPassword?: string;
  /** Every option value by option name, including those registered by later modules. */
  values: Record<string, unknown>;
  /** Where each value came from, for diagnostics. */
  sources: Record<string, 'cli' | 'env' | 'file' | 'default'>;
}

export class ConfigError extends Error {}

/** Parses `name=value` lines; `#` starts a comment. */
export function parseConfFile(text: string, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (!t || t.startsWith('#')) return;
    const eq = t.indexOf('=');
    if (eq <= 0) throw new ConfigError(`${path}:${i + 1}: expected name=value, got "${t}"`);
    out[t.slice(0, eq).trim()] = t.slice(eq + 1).trim();
  });
  return out;
}

/** Parses `--name=value` arguments. `--flag` alone means `--flag=true`. */
export function parseArgs(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of args) {
    if (!a.startsWith('--')) throw new ConfigError(`Unexpected argument "${a}"; options are --name=value`);
    const eq = a.indexOf('=');
    if (eq < 0) out[a.slice(2)] = 'true';
    else out[a.slice(2, eq)] = a.slice(eq + 1);
  }
  return out;
}

const camel = (s: string) => s.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

export interface LoadOptions {
  mode: Mode;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Path of the configuration file; default `conf/idserver.conf` under the working directory. */
  confFile?: string;
}

/** Resolves every option with precedence CLI > env > file > default. Throws ConfigError naming the option. */
export function loadConfig(opts: LoadOptions): ServerConfig {
  const env = opts.env ?? process.env;
  const cli = parseArgs(opts.args ?? []);
  const confPath = resolve(opts.confFile ?? env.IDSERVER_CONFIG_FILE ?? 'conf/idserver.conf');
  const file = existsSync(confPath) ? parseConfFile(readFileSync(confPath, 'utf8'), confPath) : {};
  const known = new Map(optionTable.map((o) => [o.name, o]));
  for (const k of Object.keys(cli)) {
    if (!known.has(k)) throw new ConfigError(`Unknown option: --${k}. Run 'idserver ${opts.mode} --help' to list the options.`);
  }
  for (const k of Object.keys(file)) {
    if (!known.has(k)) throw new ConfigError(`Unknown option in ${confPath}: ${k}`);
  }
  const values: Record<string, unknown> = {};
  const sources: ServerConfig['sources'] = {};
  for (const spec of optionTable) {
    const fromEnv = env[envName(spec.name)];
    let raw: string | undefined;
    let source: ServerConfig['sources'][string] = 'default';
    if (cli[spec.name] !== undefined) [raw, source] = [cli[spec.name], 'cli'];
    else if (fromEnv !== undefined) [raw, source] = [fromEnv, 'env'];
    else if (file[spec.name] !== undefined) [raw, source] = [file[spec.name], 'file'];
    if (raw !== undefined) {
      try {
        values[spec.name] = spec.parse(raw);
      } catch (e) {
        const where = source === 'cli' ? `--${spec.name}` : source === 'env' ? envName(spec.name) : `${spec.name} in ${confPath}`;
        throw new ConfigError(`Invalid value for option '--${spec.name}' (${where}): ${(e as Error).message}`);
      }
    } else {
      values[spec.name] = opts.mode === 'start-dev' && spec.devDefault !== undefined ? spec.devDefault : spec.default;
    }
    sources[spec.name] = source;
  }
  const cfg: Record<string, unknown> = { mode: opts.mode, values, sources };
  for (const [k, v] of Object.entries(values)) cfg[camel(k)] = v;
  return cfg as unknown as ServerConfig;
}

const MYSQL_SCHEMES = ['mysql:', 'mariadb:'];

/**
 * The database kind and location agree, or start-up stops naming the option: without `--db` the kind
 * follows from the URL's scheme (`mysql://` or `mariadb://` → MariaDB/MySQL, a path or `sqlite:` →
 * SQLite); a MariaDB kind needs such a URL (with host and database), a SQLite one a file path.
 */
export function resolveDatabase(cfg: ServerConfig): void {
  const url = cfg.dbUrl;
  const scheme = url && /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? `${url.slice(0, url.indexOf(':')).toLowerCase()}:` : undefined;
  if (cfg.sources.db === 'default' && scheme && MYSQL_SCHEMES.includes(scheme)) {
    cfg.db = 'mariadb';
    cfg.values.db = 'mariadb';
  }
  if (cfg.db === 'sqlite') {
    if (scheme && scheme !== 'sqlite:' && scheme !== 'file:') {
      throw new ConfigError(
        `Invalid value for option '--db-url': ${scheme}// is not a SQLite file; give a file path, or --db=mariadb with a mysql:// URL`,
      );
    }
    return;
  }
  if (!url) return; // mysql://127.0.0.1:3306/idserver
  if (!scheme || !MYSQL_SCHEMES.includes(scheme)) {
    throw new ConfigError(`Invalid value for option '--db-url': --db=${cfg.db} needs a URL such as mysql://host:3306/database`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`Invalid value for option '--db-url': not a URL (mysql://host:3306/database)`);
  }
  if (!parsed.hostname) throw new ConfigError(`Invalid value for option '--db-url': the URL names no host (mysql://host:3306/database)`);
}

/**
 * `start` serves tokens whose issuer is the configured public address, as Keycloak's production mode
 * does: without `--hostname` the issuer would follow the Host header, which any client chooses. Only
 * `--hostname-strict=false` (the start-dev default) allows that.
 */
export function checkHostname(cfg: ServerConfig): void {
  if (cfg.hostnameStrict && !cfg.hostname) {
    throw new ConfigError(
      `hostname is not configured; either configure --hostname (${envName('hostname')}), or set --hostname-strict=false`,
    );
  }
}

/** The --help text: every option with its environment variable and default. */
export function helpText(mode: Mode): string {
  const lines = [
    `Usage: idserver ${mode} [--name=value ...]`,
    '',
    'Every option can also be given as an environment variable (shown) or as a name=value line in',
    'conf/idserver.conf. Precedence: command line > environment > file > default.',
  ];
  const groups = new Map<string, OptionSpec[]>();
  for (const o of optionTable) groups.set(o.group, [...(groups.get(o.group) ?? []), o]);
  for (const [group, specs] of groups) {
    lines.push('', `${group}:`);
    for (const o of specs) {
      const d = mode === 'start-dev' && o.devDefault !== undefined ? o.devDefault : o.default;
      const shown = d === undefined ? '' : o.secret ? ' (default: ***)' : ` (default: ${String(d)})`;
      lines.push(`  --${o.name}=<value>`, `      ${o.description}${shown}`, `      env: ${envName(o.name)}`);
    }
  }
  return lines.join('\n');
}
