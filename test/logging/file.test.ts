// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureLogging, getLogger, loggingConfigFromValues, setReportStream, shutdownLogging } from '../../src/logging';
import { Capture } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'idserver-logfile-'));

afterAll(async () => {
  await shutdownLogging();
  setReportStream(undefined);
});

describe('file handler', () => {
  test('creates the directory, appends lines in --log-file-format, and reads back', async () => {
    const path = join(dir, 'nested', 'log', 'idserver.log');
    configureLogging(loggingConfigFromValues({ log: ['file'], 'log-file': path, 'log-file-format': '%p|%c|%s%e%n' }));
    getLogger('idserver.services.users').info('User %s created', 'alice');
    getLogger('idserver.db').debug('not at INFO');
    getLogger('idserver.http').error('failed', new Error('boom'));
    await shutdownLogging();
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('INFO|idserver.services.users|User alice created\nERROR|idserver.http|failed: Error: boom\n')).toBe(true);
    expect(text).not.toContain('not at INFO');
  });

  test('the default file format is the default console format', async () => {
    const path = join(dir, 'default.log');
    configureLogging(loggingConfigFromValues({ log: ['file'], 'log-file': path }));
    getLogger('idserver.server').warn('careful');
    await shutdownLogging();
    expect(readFileSync(path, 'utf8')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} WARN {2}\[idserver\.server\] \(main\) careful\n$/);
  });

  test('an unwritable directory: one error on the console, no file, logging goes on', async () => {
    const reports = new Capture();
    setReportStream(reports);
    const blocker = join(dir, 'not-a-directory');
    writeFileSync(blocker, 'x');
    const path = join(blocker, 'log', 'idserver.log');
    configureLogging(loggingConfigFromValues({ log: ['file'], 'log-file': path }));
    getLogger('a').info('lost');
    getLogger('a').info('lost again');
    await shutdownLogging();
    expect(existsSync(path)).toBe(false);
    expect(reports.lines()).toHaveLength(1);
    expect(reports.text).toMatch(/ERROR \[idserver\.logging\] \(main\) Cannot write the log file .*not-a-directory\/log\/idserver\.log/);
  });
});
