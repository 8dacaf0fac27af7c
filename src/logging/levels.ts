/**
 * The eight levels of the logging contract and the `--log-level` list (`<root>,<category>:<level>,...`).
 * Level names are case-insensitive; they map one to one onto log4js levels.
 */
export const LEVEL_NAMES = ['FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL', 'OFF'] as const;
export type LevelName = (typeof LEVEL_NAMES)[number];

export interface LevelConfig {
  /** Root level, lower case (log4js accepts either case). */
  root: string;
  /** Category → level, lower case. */
  categories: Record<string, string>;
}

const CATEGORY = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

/** Parses one level name, case-insensitively; throws naming the allowed levels. */
export function parseLevel(raw: string): LevelName {
  const level = raw.trim().toUpperCase();
  if (!(LEVEL_NAMES as readonly string[]).includes(level)) {
    throw new Error(`unknown level '${raw.trim()}'; allowed: ${LEVEL_NAMES.join(', ')}`);
  }
  return level as LevelName;
}

/**
 * Parses `info,idserver.db:debug`: the root level and per-category levels. The last root level wins;
 * levels are case-insensitive; a category without a level inherits from its nearest configured
 * ancestor (applied by log4js at configure time).
 */
export function parseLogLevel(value: string): LevelConfig {
  const out: LevelConfig = { root: 'info', categories: {} };
  const parts = value.split(',').map((s) => s.trim());
  if (parts.every((p) => p === '')) throw new Error(`must not be empty; allowed levels: ${LEVEL_NAMES.join(', ')}`);
  for (const part of parts.filter(Boolean)) {
    const colon = part.lastIndexOf(':');
    if (colon < 0) {
      out.root = parseLevel(part).toLowerCase();
      continue;
    }
    const cat = part.slice(0, colon).trim();
    if (!CATEGORY.test(cat))
      throw new Error(`malformed category '${cat}' in '${part}'; expected <category>:<level>, e.g. idserver.db:debug`);
    out.categories[cat] = parseLevel(part.slice(colon + 1)).toLowerCase();
  }
  return out;
}

/** GELF (syslog) severity of a level: FATAL 2, ERROR 3, WARN 4, INFO 6, DEBUG and below 7. */
export function syslogSeverity(levelStr: string): number {
  switch (levelStr) {
    case 'FATAL':
    case 'MARK':
      return 2;
    case 'ERROR':
      return 3;
    case 'WARN':
      return 4;
    case 'INFO':
      return 6;
    default:
      return 7;
  }
}
