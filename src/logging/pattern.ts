import { EOL } from 'node:os';
import type { LoggingEvent } from 'log4js';
import { checkTimeZone, compileDateFormat } from './date-format';
import {
  exceptionText,
  fullMessage,
  HOST_NAME,
  LOG_START,
  PROCESS_NAME,
  SIMPLE_HOST_NAME,
  simpleMessage,
  THREAD_ID,
  THREAD_NAME,
} from './event';

/**
 * The pattern layout of the logging contract: `%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p [%c] (%t) %s%e%n`.
 * Symbols: %% %c %c{N} %c{N.} %d{fmt} %e %h %H %i %m %n %N %p %r %s %t %t{id} %z{zone} %L, plus
 * %X{key} (context value) and %x (empty NDC). Each may carry `-` (left-justify), a minimum width and
 * `.max` (truncated from the beginning, as log4j does): `%-5p`, `%5p`, `%.3c`.
 */
export const DEFAULT_FORMAT = '%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p [%c] (%t) %s%e%n';
export const SYMBOLS = '%% %c %c{N} %c{N.} %d{pattern} %e %h %H %i %m %n %N %p %r %s %t %t{id} %z{zone} %L %X{key} %x';

const COLORS: Record<string, string> = {
  FATAL: '\x1b[1;31m',
  ERROR: '\x1b[31m',
  WARN: '\x1b[33m',
  INFO: '\x1b[32m',
  DEBUG: '\x1b[36m',
  TRACE: '\x1b[34m',
};
const RESET = '\x1b[0m';

type Render = (ev: LoggingEvent) => string;

interface Token {
  conv: string;
  arg?: string;
  left: boolean;
  min: number;
  max: number;
}

interface Parsed {
  parts: Array<string | Token>;
  zone?: string;
}

function parse(pattern: string): Parsed {
  const parts: Array<string | Token> = [];
  let zone: string | undefined;
  let text = '';
  const re = /%(-)?(\d+)?(?:\.(\d+))?([A-Za-z%])(?:\{([^}]*)\})?/y;
  let i = 0;
  while (i < pattern.length) {
    if (pattern[i] !== '%') {
      text += pattern[i++];
      continue;
    }
    re.lastIndex = i;
    const m = re.exec(pattern);
    if (!m) throw new Error(`malformed format symbol at '${pattern.slice(i, i + 8)}'; allowed symbols: ${SYMBOLS}`);
    i = re.lastIndex;
    const [, dash, min, max, conv, arg] = m;
    if (conv === '%') {
      text += '%';
      continue;
    }
    if (!'cdehHimnNprstzLXx'.includes(conv)) throw new Error(`unknown format symbol '%${conv}'; allowed symbols: ${SYMBOLS}`);
    if (conv === 'z') {
      if (!arg) throw new Error(`%z needs a zone name, e.g. %z{UTC}`);
      checkTimeZone(arg);
      zone = arg;
      continue;
    }
    if (text) parts.push(text);
    text = '';
    parts.push({ conv, arg, left: dash === '-', min: min ? Number(min) : 0, max: max ? Number(max) : 0 });
  }
  if (text) parts.push(text);
  return { parts, zone };
}

function category(arg: string | undefined): (name: string) => string {
  if (!arg) return (name) => name;
  const last = /^(\d+)$/.exec(arg);
  if (last) {
    const n = Number(last[1]);
    return (name) => name.split('.').slice(-n).join('.');
  }
  const abbrev = /^(\d+)\.$/.exec(arg);
  if (abbrev) {
    const n = Number(abbrev[1]);
    return (name) => {
      const segs = name.split('.');
      return segs.map((s, i) => (i < segs.length - 1 ? s.slice(0, n) : s)).join('.');
    };
  }
  throw new Error(`malformed %c{${arg}}; use %c{N} (last N segments) or %c{N.} (segments abbreviated to N characters)`);
}

function renderer(t: Token, zone: string | undefined): Render {
  switch (t.conv) {
    case 'c': {
      const f = category(t.arg);
      return (ev) => f(ev.categoryName);
    }
    case 'd': {
      const f = compileDateFormat(t.arg ?? 'yyyy-MM-dd HH:mm:ss,SSS', zone);
      return (ev) => f(ev.startTime);
    }
    case 'e':
      return exceptionText;
    case 'h':
      return () => SIMPLE_HOST_NAME;
    case 'H':
      return () => HOST_NAME;
    case 'i':
      return () => String(process.pid);
    case 'm':
      return fullMessage;
    case 'n':
      return () => EOL;
    case 'N':
      return () => PROCESS_NAME;
    case 'p':
      return (ev) => ev.level.levelStr;
    case 'r':
      return (ev) => String(ev.startTime.getTime() - LOG_START);
    case 's':
      return simpleMessage;
    case 't':
      if (t.arg === 'id') return () => String(THREAD_ID);
      if (t.arg) throw new Error(`malformed %t{${t.arg}}; use %t or %t{id}`);
      return () => THREAD_NAME;
    case 'L':
      return (ev) => (ev.lineNumber === undefined ? '?' : String(ev.lineNumber));
    case 'X':
      return (ev) => {
        const v = t.arg ? (ev.context as Record<string, unknown>)[t.arg] : ev.context;
        return v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
      };
    default:
      return () => '';
  }
}

function justify(r: Render, t: Token): Render {
  if (!t.min && !t.max) return r;
  return (ev) => {
    let s = r(ev);
    if (t.max && s.length > t.max) s = s.slice(s.length - t.max);
    if (t.min && s.length < t.min) s = t.left ? s.padEnd(t.min) : s.padStart(t.min);
    return s;
  };
}

/** Compiles a format template into a layout function. Throws an Error naming what is wrong and what is allowed. */
export function compilePattern(pattern: string, opts: { color?: boolean } = {}): Render {
  const { parts, zone } = parse(pattern);
  const steps: Render[] = parts.map((p) => {
    if (typeof p === 'string') return () => p;
    const r = justify(renderer(p, zone), p);
    if (opts.color && p.conv === 'p') return (ev) => `${COLORS[ev.level.levelStr] ?? ''}${r(ev)}${RESET}`;
    return r;
  });
  return (ev) => {
    let out = '';
    for (const s of steps) out += s(ev);
    return out;
  };
}

/** True when the template shows the line number (%L), which needs log4js's call-stack capture. */
export function needsCallStack(pattern: string): boolean {
  return parse(pattern).parts.some((p) => typeof p !== 'string' && p.conv === 'L');
}
