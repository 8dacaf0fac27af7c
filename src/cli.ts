import 'reflect-metadata';
import { runExportImport } from './cli-export-import';
import { ConfigError, checkHostname, helpText, loadConfig, type Mode, resolveDatabase, type ServerConfig } from './config';
import { eventListenerConfigFromValues } from './config/event-listener-options';
import { type X509LookupConfig, x509LookupFromValues } from './config/x509-options';
import { cibaConfigFromValues } from './config/ciba-options';
import { graphqlLimitsFromValues } from './config/graphql-options';
import { configureLogging, getLogger, loggingConfigFromValues, shutdownLogging } from './logging';
import { startServer } from './server';

/** The certificate lookup of the options; a lookup without its header is a bad option (exit 2). */
function lookupOrConfigError(values: Record<string, unknown>): X509LookupConfig {
  try {
    return x509LookupFromValues(values);
  } catch (e) {
    throw new ConfigError(`Invalid value for option '--spi-x509cert-lookup-provider': ${(e as Error).message}`);
  }
}

/** `idserver start|start-dev [--name=value ...]`. Exit code 2 for bad options, 1 for start-up failures. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(
      'Usage: idserver <start|start-dev> [--name=value ...]\n       idserver <export|import> --dir=<dir>|--file=<file> [--name=value ...]\n       idserver <command> --help\n',
    );
    process.exitCode = command ? 0 : 2;
    return;
  }
  if (command === 'export' || command === 'import') return runExportImport(command, rest);
  if (command !== 'start' && command !== 'start-dev') {
    process.stderr.write(`Unknown command '${command}'. Commands: start, start-dev, export, import\n`);
    process.exitCode = 2;
    return;
  }
  const mode = command as Mode;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${helpText(mode)}\n`);
    return;
  }
  let cfg: ServerConfig;
  let x509: X509LookupConfig;
  try {
    cfg = loadConfig({ mode, args: rest });
    checkHostname(cfg);
    x509 = lookupOrConfigError(cfg.values);
    resolveDatabase(cfg);
    configureLogging(loggingConfigFromValues(cfg.values));
  } catch (e) {
    const msg = e instanceof ConfigError ? e.message : `Invalid value for option '--log-level': ${(e as Error).message}`;
    process.stderr.write(`ERROR: ${msg}\n`);
    process.exitCode = 2;
    return;
  }
  const log = getLogger('idserver');
  try {
    const server = await startServer({
      host: cfg.httpHost,
      port: cfg.httpPort,
      management:
        cfg.metricsEnabled || cfg.healthEnabled
          ? { port: cfg.httpManagementPort, metrics: cfg.metricsEnabled, health: cfg.healthEnabled }
          : undefined,
      hostname: cfg.hostname,
      graphql: graphqlLimitsFromValues(cfg.values),
      graphqlUi: cfg.values['graphql-ui'] === true,
      eventListeners: eventListenerConfigFromValues(cfg.values),
      x509,
      ciba: cibaConfigFromValues(cfg.values),
      db: {
        vendor: cfg.db,
        url: cfg.dbUrl ?? (cfg.db === 'sqlite' ? 'data/idserver.sqlite' : undefined),
        username: cfg.dbUsername,
        password: cfg.dbPassword,
        poolMax: cfg.dbPoolMax,
        statementMetrics: cfg.metricsEnabled,
      },
      bootstrap: { mode, username: cfg.bootstrapAdminUsername, password: cfg.bootstrapAdminPassword },
    });
    const stop = async () => {
      log.info('Shutting down: not ready, finishing the requests in flight');
      await server.close({ timeoutMs: cfg.shutdownTimeout * 1000 });
      log.info('Stopped');
      await shutdownLogging();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (e) {
    log.fatal(`Start-up failed: ${(e as Error).message}`);
    process.exitCode = 1;
    void shutdownLogging().finally(() => setTimeout(() => process.exit(1), 100));
  }
}

if (require.main === module) {
  void main(process.argv.slice(2));
}
