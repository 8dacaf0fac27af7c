// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { hostname } from 'node:os';
import { configureLogging, getLogger, loggingConfigFromValues, setConsoleStream, shutdownLogging } from '../../src/logging';
import { JSON_FIELDS } from '../../src/logging/json-layout';
import { compilePattern } from '../../src/logging/pattern';
import { Capture } from './helpers';

/** Logs through the real console handler with the given options and returns what it wrote. */
function render(values: Record<string, unknown>, fn: () => void): string {
  const out = new Capture();
  setConsoleStream(out);
  configureLogging(loggingConfigFromValues({ 'log-level': 'all', ...values }));
  fn();
  return out.text;
}
const fmt = (pattern: string, fn: () => void) => render({ 'log-console-format': pattern }, fn);
const info =
  (category: string, ...args: unknown[]) =>
  () =>
    getLogger(category).info(...(args as [string]));

afterAll(async () => {
  setConsoleStream(undefined);
  await shutdownLogging();
});

describe('pattern layout: every symbol of the contract', () => {
  test('the default console format', () => {
    const text = render({}, info('idserver.services.users', 'User %s created', 'alice'));
    expect(text).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO {2}\[idserver\.services\.users\] \(main\) User alice created\n$/);
  });

  test.each([
    ['%%', '%'],
    ['%c', 'idserver.services.users'],
    ['%c{1}', 'users'],
    ['%c{2}', 'services.users'],
    ['%c{1.}', 'i.s.users'],
    ['%c{3.}', 'ids.ser.users'],
    ['%h', hostname().split('.')[0]],
    ['%H', hostname()],
    ['%i', String(process.pid)],
    ['%m', 'hello world'],
    ['%s', 'hello world'],
    ['%n', '\n'],
    ['%N', process.title],
    ['%p', 'INFO'],
    ['%t', 'main'],
    ['%t{id}', '0'],
    ['[%-5p]', '[INFO ]'],
    ['[%5p]', '[ INFO]'],
    ['[%.3c]', '[ers]'],
    ['[%-8.5c]', '[users   ]'],
    ['100%% %p', '100% INFO'],
    ['%X{requestId}', 'r-1'],
    ['%e', ''],
  ])('%s', (pattern, expected) => {
    const text = fmt(pattern, () => {
      const log = getLogger('idserver.services.users');
      log.addContext('requestId', 'r-1');
      log.info('hello %s', 'world');
    });
    expect(text).toBe(expected);
  });

  test('%d{pattern} with %z{zone} sets the time zone of the output', () => {
    const before = new Date();
    const utc = fmt('%d{yyyy-MM-dd HH:mm:ss,SSS XXX}%z{UTC}', info('a', 'x'));
    const paris = fmt('%z{Europe/Paris}%d{HH:mm Z}', info('a', 'x'));
    expect(utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} Z$/);
    expect(Math.abs(new Date(utc.slice(0, 19).replace(' ', 'T') + 'Z').getTime() - before.getTime())).toBeLessThan(5000);
    expect(paris).toMatch(/^\d\d:\d\d \+0[12]00$/);
    expect(fmt('%d', info('a', 'x'))).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}$/);
  });

  test('%r: milliseconds since the start of the log; %L: the line of the call', () => {
    expect(fmt('%r', info('a', 'x'))).toMatch(/^\d+$/);
    const line = fmt('%L', () => getLogger('a').info('x'));
    expect(line).toMatch(/^\d+$/);
    expect(Number(line)).toBeGreaterThan(1);
  });

  test('%e renders the thrown exception, %s leaves it out, %m includes it', () => {
    const err = new Error('boom');
    const text = fmt('%s|%m|%e', () => getLogger('a').error('Request failed', err));
    const [s, m] = text.split('|');
    expect(s).toBe('Request failed');
    expect(m).toMatch(/^Request failed: Error: boom\n\s+at /);
    expect(text.endsWith(`|: ${err.stack}`)).toBe(true);
  });

  test('colour by level when --log-console-color=true, none otherwise', () => {
    const coloured = render({ 'log-console-color': true, 'log-console-format': '%p %s' }, () => {
      getLogger('a').error('bad');
      getLogger('a').info('ok');
    });
    expect(coloured).toBe('\x1b[31mERROR\x1b[0m bad\x1b[32mINFO\x1b[0m ok');
    expect(fmt('%p', () => getLogger('a').error('bad'))).toBe('ERROR');
  });

  test('unknown or malformed symbols are rejected, naming what is allowed', () => {
    expect(() => compilePattern('%q')).toThrow(/unknown format symbol '%q'; allowed symbols: %% %c/);
    expect(() => compilePattern('%d{QQ}')).toThrow(/unknown date pattern letter/);
    expect(() => compilePattern('%z{Nowhere/City}')).toThrow(/unknown time zone/);
    expect(() => compilePattern('%c{x}')).toThrow(/malformed %c\{x\}/);
    expect(() => compilePattern('50%')).toThrow(/malformed format symbol/);
  });
});

describe('JSON console output', () => {
  test('one object per line with exactly the contract fields, never coloured', () => {
    const err = new Error('kaput');
    const text = render({ 'log-console-output': 'json', 'log-console-color': true }, () => {
      getLogger('idserver.http').info('GET /admin/realms 200');
      getLogger('idserver.db').error('Query failed', err);
    });
    expect(text).not.toContain('\x1b[');
    const lines = text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    const [a, b] = lines.map((l) => JSON.parse(l));
    expect(Object.keys(a).sort()).toEqual([...JSON_FIELDS].sort());
    expect(a).toMatchObject({
      loggerName: 'idserver.http',
      level: 'INFO',
      message: 'GET /admin/realms 200',
      threadName: 'main',
      threadId: 0,
      mdc: {},
      ndc: '',
      hostName: hostname(),
      processName: process.title,
      processId: process.pid,
    });
    expect(typeof a.loggerClassName).toBe('string');
    expect(a.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$/);
    expect(Number.isInteger(a.sequence)).toBe(true);
    expect(b.sequence).toBe(a.sequence + 1);
    expect(b.level).toBe('ERROR');
    expect(b.message).toContain('Query failed: Error: kaput');
  });
});
