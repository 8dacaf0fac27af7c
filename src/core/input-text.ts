import { type HttpError, errorB } from './errors';

/**
 * Text every front refuses before anything runs: NUL characters (PostgreSQL and SQLite's C APIs end a
 * string there; MariaDB stores it) and unpaired UTF-16 surrogates (no UTF-8 form: a column or a
 * Location header cannot hold them). Keycloak answers such input with a database error; idserver
 * answers 400 on both databases alike.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Jackson's default nesting limit (StreamReadConstraints): deeper documents are not parsed. */
export const MAX_JSON_DEPTH = 1000;

export const badText = (): HttpError => errorB(400, 'invalid_request', 'Text must not contain NUL characters or unpaired surrogates');

export const hasBadText = (s: string): boolean => s.includes('\u0000') || LONE_SURROGATE.test(s);

/**
 * Checks a parsed JSON value: every string and key free of bad text, nesting at most
 * MAX_JSON_DEPTH. Iterative, so a hostile document cannot overflow the stack.
 */
export function checkJsonValue(value: unknown): HttpError | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v === 'string') {
      if (hasBadText(v)) return badText();
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return errorB(400, 'invalid_request', 'Cannot parse the JSON');
    if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
    } else {
      for (const [k, item] of Object.entries(v)) {
        if (hasBadText(k)) return badText();
        stack.push([item, depth + 1]);
      }
    }
  }
  return undefined;
}
