import { accessSync, constants, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { LoggingEvent } from 'log4js';
import { compilePattern } from './pattern';
import { reportToConsole } from './report';

/**
 * File handler (`--log=file`): appends formatted lines to `--log-file`. When the directory cannot be
 * created or written, the server keeps running: one error on the console, no file, nothing written.
 */
export interface FileAppenderConfig {
  filename: string;
  pattern: string;
}

type Appender = ((ev: LoggingEvent) => void) & { shutdown?: (done: (e?: Error) => void) => void };

/** Opens the log file for appending, or reports why it cannot and returns undefined. */
function open(path: string): ReturnType<typeof createWriteStream> | undefined {
  try {
    mkdirSync(dirname(path), { recursive: true });
    accessSync(dirname(path), constants.W_OK);
    if (existsSync(path)) accessSync(path, constants.W_OK);
  } catch (e) {
    reportToConsole('ERROR', `Cannot write the log file ${path}: ${(e as Error).message}. File logging is off.`);
    return undefined;
  }
  const stream = createWriteStream(path, { flags: 'a' });
  let failed = false;
  stream.on('error', (e) => {
    if (!failed) reportToConsole('ERROR', `Cannot write the log file ${path}: ${e.message}. File logging is off.`);
    failed = true;
  });
  return stream;
}

/** log4js appender module of the file handler. */
export const fileAppenderModule = {
  configure(config: FileAppenderConfig): Appender {
    const path = resolve(config.filename);
    const layout = compilePattern(config.pattern);
    const stream = open(path);
    if (!stream) return () => undefined;
    const appender: Appender = (ev) => {
      if (!stream.destroyed) stream.write(layout(ev));
    };
    appender.shutdown = (done) => {
      if (stream.destroyed) done();
      else stream.end(() => done());
    };
    return appender;
  },
};
