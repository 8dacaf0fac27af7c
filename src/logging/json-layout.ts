import type { LoggingEvent } from 'log4js';
import { compileDateFormat } from './date-format';
import { fullMessage, HOST_NAME, PROCESS_NAME, THREAD_ID, THREAD_NAME } from './event';

/**
 * The JSON console record of the logging contract: one object per line with exactly timestamp,
 * sequence, loggerClassName, loggerName, level, message, threadName, threadId, mdc, ndc, hostName,
 * processName, processId. Never coloured.
 */
export const JSON_FIELDS = [
  'timestamp',
  'sequence',
  'loggerClassName',
  'loggerName',
  'level',
  'message',
  'threadName',
  'threadId',
  'mdc',
  'ndc',
  'hostName',
  'processName',
  'processId',
] as const;

const timestamp = compileDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
let sequence = 0;

/** Builds the JSON layout: each event as one JSON line (ending with a newline). */
export function jsonLayout(): (ev: LoggingEvent) => string {
  return (ev) =>
    `${JSON.stringify({
      timestamp: timestamp(ev.startTime),
      sequence: ++sequence,
      loggerClassName: 'log4js.Logger',
      loggerName: ev.categoryName,
      level: ev.level.levelStr,
      message: fullMessage(ev),
      threadName: THREAD_NAME,
      threadId: THREAD_ID,
      mdc: ev.context ?? {},
      ndc: '',
      hostName: HOST_NAME,
      processName: PROCESS_NAME,
      processId: ev.pid,
    })}\n`;
}
