import { compileDateFormat } from './date-format';
import { THREAD_NAME } from './event';

/**
 * Problems of the logging system itself (an unwritable log file, dropped GELF messages) go straight
 * to the console (stderr), never through log4js: a failing handler must not feed itself.
 */
const stamp = compileDateFormat('yyyy-MM-dd HH:mm:ss,SSS');
let stream: NodeJS.WritableStream = process.stderr;

/** Redirects these reports (tests capture them); undefined restores stderr. */
export function setReportStream(s: NodeJS.WritableStream | undefined): void {
  stream = s ?? process.stderr;
}

/** Writes one line on stderr in the default console format, category `idserver.logging`. */
export function reportToConsole(level: 'ERROR' | 'WARN' | 'INFO', message: string): void {
  stream.write(`${stamp(new Date())} ${level.padEnd(5)} [idserver.logging] (${THREAD_NAME}) ${message}\n`);
}
