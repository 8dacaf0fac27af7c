import log4js from 'log4js';
import { fastCallStack } from './call-site';
import { consoleAppenderModule } from './console';
import { fileAppenderModule } from './file';
import { gelfAppenderModule } from './gelf';
import type { LevelConfig } from './levels';
import { jsonLayout } from './json-layout';
import { type LoggingConfig, loggingConfigFromValues } from './options';
import { compilePattern, needsCallStack } from './pattern';

/**
 * Logging seam: configures log4js from the logging options (levels per category, console / file /
 * GELF handlers, pattern and JSON layouts). Callers only ever use `getLogger(category)`; categories
 * are dotted (`idserver.services.users`) and inherit the level of their nearest configured ancestor.
 */
export type Logger = log4js.Logger;
export { type LevelConfig, LEVEL_NAMES, parseLevel, parseLogLevel } from './levels';
export { type LoggingConfig, loggingConfigFromValues, loggingOptions } from './options';
export { setConsoleStream } from './console';
export { setReportStream } from './report';

log4js.addLayout('idserver-pattern', (c: { pattern: string; color?: boolean }) => compilePattern(c.pattern, { color: c.color }));
log4js.addLayout('idserver-json', () => jsonLayout());

/** Builds the log4js configuration object of a logging configuration. */
export function log4jsConfiguration(cfg: LoggingConfig): log4js.Configuration {
  const appenders: log4js.Configuration['appenders'] = {};
  const used: string[] = [];
  let callStack = false;
  if (cfg.handlers.includes('console')) {
    const json = cfg.console.output === 'json';
    appenders.console = {
      type: consoleAppenderModule,
      layout: json ? { type: 'idserver-json' } : { type: 'idserver-pattern', pattern: cfg.console.format, color: cfg.console.color },
    };
    used.push('console');
    callStack ||= !json && needsCallStack(cfg.console.format);
  }
  if (cfg.handlers.includes('file')) {
    appenders.file = { type: fileAppenderModule, filename: cfg.file.path, pattern: cfg.file.format };
    used.push('file');
    callStack ||= needsCallStack(cfg.file.format);
  }
  if (cfg.handlers.includes('gelf')) {
    appenders.gelfSender = { type: gelfAppenderModule, ...cfg.gelf };
    appenders.gelf = { type: 'logLevelFilter', appender: 'gelfSender', level: cfg.gelf.level ?? 'ALL' };
    used.push('gelf');
    callStack ||= cfg.gelf.includeLocation;
  }
  if (used.length === 0) {
    appenders.none = { type: consoleAppenderModule, layout: { type: 'idserver-pattern', pattern: '' } };
    used.push('none');
  }
  const categories: log4js.Configuration['categories'] = {
    default: { appenders: used, level: cfg.levels.root, enableCallStack: callStack },
  };
  for (const [cat, level] of Object.entries(cfg.levels.categories)) {
    categories[cat] = { appenders: used, level, enableCallStack: callStack };
  }
  return { appenders, categories };
}

/**
 * Applies a logging configuration (or, for tests and tools, just levels with the default console
 * handler). Replaces any previous configuration.
 */
export function configureLogging(cfg: LoggingConfig | LevelConfig): void {
  const full: LoggingConfig = 'root' in cfg ? { ...loggingConfigFromValues({}), levels: cfg } : cfg;
  log4js.configure(log4jsConfiguration(full));
}

/** The logger of a category (`idserver.services.users`). */
export function getLogger(category: string): Logger {
  const logger = log4js.getLogger(category);
  logger.setParseCallStackFunction(fastCallStack);
  return logger;
}

/** Flushes and closes every handler (file, GELF connections). */
export async function shutdownLogging(): Promise<void> {
  await new Promise<void>((resolve) => log4js.shutdown(() => resolve()));
}
