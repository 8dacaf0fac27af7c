// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { configureLogging, getLogger, loggingConfigFromValues, parseLogLevel, setConsoleStream, shutdownLogging } from '../../src/logging';
import { Capture } from './helpers';

/** Configures console logging with `--log-level=<value>` and a plain `%p %c %s` line, into a capture. */
function setup(logLevel: string): Capture {
  const out = new Capture();
  setConsoleStream(out);
  configureLogging(loggingConfigFromValues({ 'log-level': logLevel, 'log-console-format': '%p %c %s%n' }));
  return out;
}

/** Logs one message at every level on a category; returns the levels that came out. */
function emitted(out: Capture, category: string): string[] {
  const log = getLogger(category);
  const before = out.lines().length;
  log.trace('t');
  log.debug('d');
  log.info('i');
  log.warn('w');
  log.error('e');
  log.fatal('f');
  return out
    .lines()
    .slice(before)
    .map((l) => l.split(' ')[0]);
}

afterAll(async () => {
  setConsoleStream(undefined);
  await shutdownLogging();
});

describe('log levels (contract rules 1-5)', () => {
  test('rule 1: levels are case-insensitive', () => {
    expect(parseLogLevel('WaRn,idserver.db:DeBuG')).toEqual({ root: 'warn', categories: { 'idserver.db': 'debug' } });
    const out = setup('Error');
    expect(emitted(out, 'idserver.x')).toEqual(['ERROR', 'FATAL']);
  });

  test('all eight levels, ALL and OFF included', () => {
    const expected: Record<string, string[]> = {
      FATAL: ['FATAL'],
      ERROR: ['ERROR', 'FATAL'],
      WARN: ['WARN', 'ERROR', 'FATAL'],
      INFO: ['INFO', 'WARN', 'ERROR', 'FATAL'],
      DEBUG: ['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'],
      TRACE: ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'],
      ALL: ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'],
      OFF: [],
    };
    for (const [level, levels] of Object.entries(expected)) {
      const out = setup(level.toLowerCase());
      expect([level, emitted(out, 'idserver.any')]).toEqual([level, levels]);
    }
  });

  test('rule 2: a category without a level inherits from its nearest configured ancestor, then from the root', () => {
    const out = setup('warn,idserver:debug');
    expect(emitted(out, 'idserver.services.users')).toEqual(['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);
    expect(emitted(out, 'other.module')).toEqual(['WARN', 'ERROR', 'FATAL']);
  });

  test('rule 3: a level applies to sub-categories unless a more specific one is configured', () => {
    const out = setup('info,idserver:error,idserver.services:trace,idserver.services.users:warn');
    expect(emitted(out, 'idserver.http')).toEqual(['ERROR', 'FATAL']);
    expect(emitted(out, 'idserver.services.groups')).toEqual(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);
    expect(emitted(out, 'idserver.services.users')).toEqual(['WARN', 'ERROR', 'FATAL']);
    expect(emitted(out, 'idserver.services.users.sub')).toEqual(['WARN', 'ERROR', 'FATAL']);
  });

  test('a logger obtained before configuration follows the new configuration', () => {
    const early = getLogger('idserver.services.realms');
    const out = setup('error,idserver.services:debug');
    early.debug('after reconfigure');
    expect(out.text).toContain('DEBUG idserver.services.realms after reconfigure');
  });

  test('rule 4: when the root level is given more than once, the last wins', () => {
    expect(parseLogLevel('debug,idserver.db:trace,error').root).toBe('error');
    const out = setup('debug,idserver.db:trace,error');
    expect(emitted(out, 'idserver.http')).toEqual(['ERROR', 'FATAL']);
    expect(emitted(out, 'idserver.db')).toHaveLength(6);
  });

  test('without a root level in the list the default INFO applies', () => {
    expect(parseLogLevel('idserver.db:debug')).toEqual({ root: 'info', categories: { 'idserver.db': 'debug' } });
  });

  test('unknown levels and malformed entries are rejected with the allowed levels', () => {
    expect(() => parseLogLevel('loud')).toThrow(/unknown level 'loud'; allowed: FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL, OFF/);
    expect(() => parseLogLevel('info,idserver.db:verbose')).toThrow(/unknown level 'verbose'/);
    expect(() => parseLogLevel('info,:debug')).toThrow(/malformed category/);
    expect(() => parseLogLevel('info,bad category:debug')).toThrow(/malformed category/);
    expect(() => parseLogLevel(',')).toThrow(/must not be empty/);
  });
});
