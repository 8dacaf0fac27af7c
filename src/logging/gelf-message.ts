import type { LoggingEvent } from 'log4js';
import type { DateFormatter } from './date-format';
import { eventError, fullMessage, HOST_NAME, messageParams, simpleMessage, THREAD_NAME } from './event';
import { syslogSeverity } from './levels';

/**
 * One log event as a GELF 1.1 message. Additional fields carry GELF's `_` prefix on the wire
 * (`_StackTrace`, `_MessageParam0`, `_SourceClassName`, ...); Graylog shows them without it.
 * `timestamp` is formatted with `--log-gelf-timestamp-format`, as the logging contract says.
 */
export interface GelfFieldOptions {
  facility: string;
  includeStackTrace: boolean;
  includeMessageParameters: boolean;
  includeLocation: boolean;
}

/** Builds the GELF object of an event. */
export function gelfMessage(ev: LoggingEvent, opts: GelfFieldOptions, timestamp: DateFormatter): Record<string, unknown> {
  const short = simpleMessage(ev);
  const msg: Record<string, unknown> = {
    version: '1.1',
    host: HOST_NAME,
    short_message: short === '' ? '-' : short,
    full_message: fullMessage(ev),
    timestamp: timestamp(ev.startTime),
    level: syslogSeverity(ev.level.levelStr),
    facility: opts.facility,
    _Severity: ev.level.levelStr,
    _LoggerName: ev.categoryName,
    _Thread: THREAD_NAME,
  };
  const err = eventError(ev);
  if (err && opts.includeStackTrace) msg._StackTrace = err.stack ?? `${err.name}: ${err.message}`;
  if (opts.includeMessageParameters) {
    messageParams(ev).forEach((p, i) => {
      msg[`_MessageParam${i}`] = p;
    });
  }
  if (opts.includeLocation) {
    const cat = ev.categoryName;
    msg._SourceClassName = cat;
    msg._SourceSimpleClassName = cat.slice(cat.lastIndexOf('.') + 1);
    msg._SourceMethodName = ev.functionName || (ev as LoggingEvent & { callerName?: string }).callerName || '<unknown>';
    if (ev.lineNumber !== undefined) msg._SourceLineNumber = ev.lineNumber;
  }
  return msg;
}
