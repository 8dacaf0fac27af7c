import { hostname } from 'node:os';
import { format } from 'node:util';
import { threadId } from 'node:worker_threads';
import type { LoggingEvent } from 'log4js';

/**
 * What every layout reads from a log4js event: the simple message (without exception), the thrown
 * error, and the process facts the format symbols name (host, process, thread).
 */
export const HOST_NAME = hostname();
export const SIMPLE_HOST_NAME = HOST_NAME.split('.')[0];
export const PROCESS_NAME = process.title || 'node';
export const THREAD_NAME = threadId === 0 ? 'main' : `worker-${threadId}`;
export const THREAD_ID = threadId;
/** Start of the application log, for `%r`. */
export const LOG_START = Date.now();

interface Cached {
  message: string;
  params: string[];
}
const cache = new WeakMap<LoggingEvent, Cached>();

function analyse(ev: LoggingEvent): Cached {
  let c = cache.get(ev);
  if (!c) {
    const args = ev.data.filter((d) => !(d instanceof Error));
    const err = eventError(ev);
    const message = args.length > 0 ? format(...args) : err ? err.message : '';
    const params = (typeof ev.data[0] === 'string' ? ev.data.slice(1) : ev.data).map((p) =>
      p instanceof Error ? `${p.name}: ${p.message}` : typeof p === 'string' ? p : format('%o', p),
    );
    c = { message, params };
    cache.set(ev, c);
  }
  return c;
}

/** The error logged with the event (log4js puts the first Error argument in `error`). */
export function eventError(ev: LoggingEvent): Error | undefined {
  const e = (ev as LoggingEvent & { error?: unknown }).error;
  return e instanceof Error ? e : undefined;
}

/** The message without exception trace (`%s`). */
export function simpleMessage(ev: LoggingEvent): string {
  return analyse(ev).message;
}

/** The arguments of the log call after the message template, as strings (GELF MessageParamN). */
export function messageParams(ev: LoggingEvent): string[] {
  return analyse(ev).params;
}

/** The exception as `%e` renders it: `: <stack>` (empty when nothing was thrown). */
export function exceptionText(ev: LoggingEvent): string {
  const err = eventError(ev);
  return err ? `: ${err.stack ?? `${err.name}: ${err.message}`}` : '';
}

/** The full message including the exception (`%m`). */
export function fullMessage(ev: LoggingEvent): string {
  return simpleMessage(ev) + exceptionText(ev);
}
