import { ConfigError, loadConfig, parseArgs, resolveDatabase, type ServerConfig } from './config';
import { envName, optionTable, parsers } from './config/options';
import { openDb } from './db';
import { configureLogging, loggingConfigFromValues, shutdownLogging } from './logging';
import { fullExport, type UsersStrategy } from './services/import-export/full-export';
import { fullImport } from './services/import-export/full-import';

/**
 * `idserver export` and `idserver import` (Keycloak's `kc.sh export|import`): the database options of
 * `start` (the one option table: command line, environment, conf file) plus the command's own, which
 * exist on the command line only. The database is opened and migrated; no HTTP listener is started.
 */

type Command = 'export' | 'import';

interface CommandOption {
  name: string;
  description: string;
  parse: (raw: string) => unknown;
  default?: unknown;
}

const positive = parsers.int(1, 1_000_000_000);

const OWN: Record<Command, CommandOption[]> = {
  export: [
    {
      name: 'dir',
      description: 'Export into this directory: <realm>-realm.json and <realm>-users-<n>.json files.',
      parse: parsers.nonEmpty,
    },
    { name: 'file', description: 'Export into this one file: a JSON array of realms, users inside them.', parse: parsers.nonEmpty },
    { name: 'realm', description: 'Export only this realm (default: every realm, master included).', parse: parsers.nonEmpty },
    {
      name: 'users',
      description:
        'How users are written: different_files (default with --dir), same_file (one <realm>-users-0.json), realm_file (inside the realm; the only choice with --file besides skip), skip.',
      parse: parsers.oneOf('realm_file', 'same_file', 'different_files', 'skip'),
    },
    { name: 'users-per-file', description: 'Users per file with --users=different_files.', parse: positive, default: 50 },
  ],
  import: [
    { name: 'dir', description: 'Import every <realm>-realm.json of this directory with its user files.', parse: parsers.nonEmpty },
    { name: 'file', description: 'Import this file: a realm or an array of realms.', parse: parsers.nonEmpty },
    {
      name: 'override',
      description: 'Replace a realm that already exists (true), or leave it and go on with the next (false).',
      parse: parsers.bool,
      default: true,
    },
  ],
};

const SHARED_GROUPS = new Set(['Database', 'Logging']);

export function exportImportHelp(command: Command): string {
  const lines = [
    `Usage: idserver ${command} --dir=<dir>|--file=<file> [--name=value ...]`,
    '',
    command === 'export'
      ? 'Writes realms with their users and credential hashes in Keycloak’s export format, without starting the server.'
      : 'Reads realms in Keycloak’s export format (from Keycloak or idserver), one transaction per realm, without starting the server.',
    '',
    `${command} options (command line only):`,
  ];
  for (const o of OWN[command]) {
    lines.push(`  --${o.name}=<value>`, `      ${o.description}${o.default === undefined ? '' : ` (default: ${String(o.default)})`}`);
  }
  lines.push('', 'Database and logging options, as for start (also as environment variables or in conf/idserver.conf):');
  for (const o of optionTable.filter((x) => SHARED_GROUPS.has(x.group))) {
    lines.push(`  --${o.name}=<value>`, `      ${o.description}`, `      env: ${envName(o.name)}`);
  }
  return lines.join('\n');
}

/** Counts and rate on stderr: one line rewritten in place on a terminal, plain lines (at most every 5 s) otherwise. */
class Progress {
  private readonly tty = Boolean(process.stderr.isTTY);
  private started = Date.now();
  private last = 0;
  private realm = '';

  constructor(private readonly verb: string) {}

  /** A realm starts: its time and rate count from now. */
  begin(realm: string): void {
    this.realm = realm;
    this.started = Date.now();
    this.last = 0;
  }

  update(realm: string, users: number, total?: number): void {
    if (realm !== this.realm) this.begin(realm);
    const now = Date.now();
    if (now - this.last < (this.tty ? 100 : 5000)) return;
    this.last = now;
    const line = this.line(users, total);
    if (this.tty) process.stderr.write(`\r\x1b[K${line}`);
    else process.stderr.write(`${line}\n`);
  }

  done(realm: string, users: number, note = ''): void {
    if (this.realm !== realm) this.started = Date.now();
    const seconds = (Date.now() - this.started) / 1000;
    const text = `${this.verb} realm '${realm}': ${users} users in ${seconds.toFixed(1)} s${note}`;
    process.stderr.write(this.tty ? `\r\x1b[K${text}\n` : `${text}\n`);
    this.realm = '';
  }

  private line(users: number, total?: number): string {
    const seconds = Math.max((Date.now() - this.started) / 1000, 0.001);
    const rate = Math.round(users / seconds);
    let bar = '';
    if (total && this.tty) {
      const filled = Math.min(30, Math.round((users / total) * 30));
      bar = `[${'#'.repeat(filled)}${'-'.repeat(30 - filled)}] ${Math.floor((users / total) * 100)}% `;
    }
    return `${this.verb} '${this.realm}': ${bar}${users}${total ? `/${total}` : ''} users, ${rate} users/s`;
  }
}

/** Splits the command's own options from the shared ones and parses them; ConfigError on a bad one. */
function ownOptions(command: Command, args: string[]): { own: Record<string, unknown>; rest: string[] } {
  const defs = new Map(OWN[command].map((o) => [o.name, o]));
  const own: Record<string, unknown> = {};
  const rest: string[] = [];
  for (const a of args) {
    const [name, raw] = Object.entries(parseArgs([a]))[0] ?? [];
    const def = name ? defs.get(name) : undefined;
    if (!def) {
      rest.push(a);
      continue;
    }
    try {
      own[name] = def.parse(raw);
    } catch (e) {
      throw new ConfigError(`Invalid value for option '--${name}': ${(e as Error).message}`);
    }
  }
  for (const o of OWN[command]) if (own[o.name] === undefined && o.default !== undefined) own[o.name] = o.default;
  if (!own.dir === !own.file)
    throw new ConfigError(`Give exactly one of --dir and --file. Run 'idserver ${command} --help' for the options.`);
  return { own, rest };
}

/** `idserver export|import [--name=value ...]`: exit 0 when done, 2 for bad options, 1 when the work failed. */
export async function runExportImport(command: Command, args: string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${exportImportHelp(command)}\n`);
    return;
  }
  let cfg: ServerConfig;
  let own: Record<string, unknown>;
  try {
    const split = ownOptions(command, args);
    own = split.own;
    for (const a of split.rest) {
      const name = Object.keys(parseArgs([a]))[0];
      const spec = optionTable.find((o) => o.name === name);
      if (!spec || !SHARED_GROUPS.has(spec.group)) {
        throw new ConfigError(`Unknown option: --${name}. Run 'idserver ${command} --help' to list the options.`);
      }
    }
    cfg = loadConfig({ mode: 'start', args: split.rest });
    resolveDatabase(cfg);
    if (command === 'export' && own.file && (own.users === 'same_file' || own.users === 'different_files')) {
      throw new ConfigError(`Invalid value for option '--users': ${own.users} needs --dir (with --file: realm_file or skip)`);
    }
    configureLogging(loggingConfigFromValues(cfg.values));
  } catch (e) {
    process.stderr.write(`ERROR: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const progress = new Progress(command === 'export' ? 'Exported' : 'Imported');
  let db: Awaited<ReturnType<typeof openDb>> | undefined;
  try {
    db = await openDb({
      vendor: cfg.db,
      url: cfg.dbUrl ?? (cfg.db === 'sqlite' ? 'data/idserver.sqlite' : undefined),
      username: cfg.dbUsername,
      password: cfg.dbPassword,
      poolMax: cfg.dbPoolMax,
    });
    if (command === 'export') {
      // Totals for the bar: one count per realm, read before the export starts.
      const totals = new Map<string, number>();
      for (const r of await db.models.Realm.findAll({ attributes: ['id', 'name'] })) {
        totals.set(r.name, await db.models.User.count({ where: { realmId: r.id } }));
      }
      await fullExport(db, {
        dir: own.dir as string | undefined,
        file: own.file as string | undefined,
        realm: own.realm as string | undefined,
        users: own.users as UsersStrategy | undefined,
        usersPerFile: own['users-per-file'] as number,
        realmStart: (realm) => progress.begin(realm),
        progress: (realm, users) => progress.update(realm, users, totals.get(realm)),
        realmDone: (realm, users) => progress.done(realm, users),
      });
    } else {
      await fullImport(db, {
        dir: own.dir as string | undefined,
        file: own.file as string | undefined,
        override: own.override as boolean,
        realmStart: (realm) => progress.begin(realm),
        progress: (realm, users) => progress.update(realm, users),
        notice: (message) => process.stderr.write(`${message}\n`),
        realmDone: (r) => {
          if (!r.skipped) progress.done(r.realm, r.users);
        },
      });
    }
  } catch (e) {
    process.stderr.write(`\nERROR: ${command} failed: ${(e as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await db?.close().catch(() => undefined);
    await shutdownLogging();
  }
}
