import type { OptionSpec } from '../config/option-spec';
import { compileDateFormat } from './date-format';
import { parseGelfHost } from './gelf';
import { type LevelConfig, type LevelName, parseLevel, parseLogLevel } from './levels';
import { compilePattern, DEFAULT_FORMAT } from './pattern';

/**
 * The logging options of the contract (group "Logging" in --help). `--log-level` itself lives in the
 * core option table and is validated by `validateLogLevel`. `loggingConfigFromValues` turns the
 * resolved option values into the configuration `configureLogging` applies.
 */
export const HANDLERS = ['console', 'file', 'gelf'] as const;
export type Handler = (typeof HANDLERS)[number];

export interface LoggingConfig {
  levels: LevelConfig;
  handlers: Handler[];
  console: { output: 'default' | 'json'; format: string; color: boolean };
  file: { path: string; format: string };
  gelf: {
    host: string;
    port: number;
    level?: LevelName;
    includeStackTrace: boolean;
    timestampFormat: string;
    facility: string;
    maxMessageSize: number;
    includeMessageParameters: boolean;
    includeLocation: boolean;
  };
}

const bool = (raw: string): boolean => {
  const v = raw.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new Error('must be true or false');
};
const int =
  (min: number, max: number) =>
  (raw: string): number => {
    const n = Number(raw.trim());
    if (!/^\d+$/.test(raw.trim()) || n < min || n > max) throw new Error(`must be an integer between ${min} and ${max}`);
    return n;
  };
const nonEmpty = (raw: string) => {
  if (raw.trim() === '') throw new Error('must not be empty');
  return raw.trim();
};
const template = (raw: string) => {
  compilePattern(raw);
  return raw;
};

const gelfHost = (raw: string) => {
  parseGelfHost(raw);
  return raw.trim();
};
const dateFormat = (raw: string) => {
  compileDateFormat(raw);
  return raw;
};

/** Validates `--log-level` (`<root>` or `<root>,<category>:<level>,...`) and returns it unchanged. */
export function validateLogLevel(raw: string): string {
  parseLogLevel(raw);
  return raw;
}

/** Parses `--log`: a comma-separated list of console, file, gelf. */
export function parseHandlers(raw: string): Handler[] {
  const list = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (list.length === 0) throw new Error(`must list at least one handler from: ${HANDLERS.join(', ')}`);
  for (const h of list) {
    if (!(HANDLERS as readonly string[]).includes(h)) throw new Error(`unknown handler '${h}'; allowed: ${HANDLERS.join(', ')}`);
  }
  return [...new Set(list)] as Handler[];
}

const spec = (s: Omit<OptionSpec, 'group'>): OptionSpec => ({ ...s, group: 'Logging' });

/** The option specs registered by the logging module. */
export const loggingOptions: OptionSpec[] = [
  spec({
    name: 'log',
    description: 'Enabled log handlers, comma-separated: console, file, gelf.',
    default: ['console'],
    parse: parseHandlers,
  }),
  spec({
    name: 'log-console-output',
    description: 'Console output: default (plain text in --log-console-format) or json (one JSON object per line).',
    default: 'default',
    parse: (raw) => {
      const v = raw.trim().toLowerCase();
      if (v !== 'default' && v !== 'json') throw new Error('must be one of: default, json');
      return v;
    },
  }),
  spec({
    name: 'log-console-format',
    description: 'Console line format (format symbols: %d{...} %p %c %t %s %e %n ...).',
    default: DEFAULT_FORMAT,
    parse: template,
  }),
  spec({
    name: 'log-console-color',
    description: 'Colour the console level by severity (never in json output).',
    default: false,
    parse: bool,
  }),
  spec({
    name: 'log-file',
    description: 'Path of the log file (its directory must be writable).',
    default: 'data/log/idserver.log',
    parse: nonEmpty,
  }),
  spec({
    name: 'log-file-format',
    description: 'Log file line format (same symbols as the console format).',
    default: DEFAULT_FORMAT,
    parse: template,
  }),
  spec({
    name: 'log-gelf-host',
    description: 'GELF server host; prefix tcp: for TCP, UDP otherwise.',
    default: 'localhost',
    parse: gelfHost,
  }),
  spec({ name: 'log-gelf-port', description: 'GELF server port.', default: 12201, parse: int(1, 65535) }),
  spec({
    name: 'log-gelf-level',
    description: 'Level of the GELF handler only; narrows within --log-level (default: inherits).',
    parse: parseLevel,
  }),
  spec({
    name: 'log-gelf-include-stack-trace',
    description: 'Send the stack trace of a logged error in field StackTrace.',
    default: true,
    parse: bool,
  }),
  spec({
    name: 'log-gelf-timestamp-format',
    description: 'SimpleDateFormat pattern of the GELF timestamp field.',
    default: 'yyyy-MM-dd HH:mm:ss,SSS',
    parse: dateFormat,
  }),
  spec({ name: 'log-gelf-facility', description: 'Value of the GELF facility field.', default: 'idserver', parse: nonEmpty }),
  spec({
    name: 'log-gelf-max-message-size',
    description: 'Maximum GELF UDP datagram size in bytes; larger messages are chunked.',
    default: 8192,
    parse: int(64, 65507),
  }),
  spec({
    name: 'log-gelf-include-message-parameters',
    description: 'Send the arguments of the log call as MessageParam0, MessageParam1, ...',
    default: true,
    parse: bool,
  }),
  spec({
    name: 'log-gelf-include-location',
    description: 'Send SourceClassName, SourceMethodName and SourceSimpleClassName.',
    default: true,
    parse: bool,
  }),
];

const DEFAULTS: Record<string, unknown> = Object.fromEntries(loggingOptions.map((o) => [o.name, o.default]));

/** Builds the logging configuration from resolved option values (missing values take the defaults). */
export function loggingConfigFromValues(values: Record<string, unknown>): LoggingConfig {
  const v = (name: string) => values[name] ?? DEFAULTS[name];
  const logLevel = String(values['log-level'] ?? 'info');
  return {
    levels: parseLogLevel(logLevel),
    handlers: Array.isArray(v('log')) ? (v('log') as Handler[]) : parseHandlers(String(v('log'))),
    console: {
      output: v('log-console-output') as 'default' | 'json',
      format: v('log-console-format') as string,
      color: v('log-console-color') as boolean,
    },
    file: { path: v('log-file') as string, format: v('log-file-format') as string },
    gelf: {
      host: v('log-gelf-host') as string,
      port: v('log-gelf-port') as number,
      level: v('log-gelf-level') as LevelName | undefined,
      includeStackTrace: v('log-gelf-include-stack-trace') as boolean,
      timestampFormat: v('log-gelf-timestamp-format') as string,
      facility: v('log-gelf-facility') as string,
      maxMessageSize: v('log-gelf-max-message-size') as number,
      includeMessageParameters: v('log-gelf-include-message-parameters') as boolean,
      includeLocation: v('log-gelf-include-location') as boolean,
    },
  };
}
