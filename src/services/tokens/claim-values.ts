/**
 * Claim values of the mapper engine: nested claim names (`a.b`; `a\.b` is one segment), merging of
 * multivalued claims, and the `jsonType.label` conversions (String, long, int, boolean, JSON).
 */
import type { Claims } from '../../representations/token';

/** Splits a claim name on unescaped dots (`a\.b` is one segment). */
export function claimPath(name: string): string[] {
  return name.split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, '.'));
}

/** Sets a (nested) claim; arrays already present are merged, as Keycloak does for multivalued claims. */
export function setClaim(target: Claims, name: string, value: unknown): void {
  const path = claimPath(name);
  let cur = target;
  for (const seg of path.slice(0, -1)) {
    if (!cur[seg] || typeof cur[seg] !== 'object' || Array.isArray(cur[seg])) cur[seg] = {};
    cur = cur[seg] as Claims;
  }
  const last = path[path.length - 1];
  const prev = cur[last];
  cur[last] = Array.isArray(prev) && Array.isArray(value) ? [...new Set([...prev, ...value])] : value;
}

/** Converts a string value to the mapper's `jsonType.label` (undefined when it does not convert). */
export function convert(value: unknown, type: string | undefined): unknown {
  if (value === null || value === undefined) return undefined;
  const s = typeof value === 'string' ? value : String(value);
  switch (type) {
    case 'long':
    case 'int': {
      const n = Number(s);
      return s.trim() !== '' && Number.isInteger(n) ? n : undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : s.toLowerCase() === 'true' ? true : s.toLowerCase() === 'false' ? false : undefined;
    case 'JSON':
      try {
        return typeof value === 'string' ? JSON.parse(value) : value;
      } catch {
        return undefined;
      }
    default:
      return typeof value === 'boolean' || typeof value === 'number' ? value : s;
  }
}

/** Claim value of a list of raw values: converted, an array when multivalued, else the first value. */
export function claimValue(values: unknown[], config: Record<string, string>, multivalued: boolean): unknown {
  const converted = values.map((v) => convert(v, config['jsonType.label'])).filter((v) => v !== undefined);
  if (!converted.length) return undefined;
  return multivalued ? converted : converted[0];
}
