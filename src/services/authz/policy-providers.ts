/**
 * Keycloak's policy providers (authz/policy/common, `org.keycloak.authorization.policy.provider.*`) as
 * pure functions: each says whether its policy *grants* for the identity. A policy that does not grant
 * is a deny, exactly as Keycloak's `denyIfNoEffect` makes it; the policy's logic (POSITIVE/NEGATIVE)
 * is applied by the engine (evaluation.ts), not here. Aggregates and permissions are evaluated by the
 * engine too, since they recurse into other policies.
 *
 * Config keys and JSON shapes are Keycloak's stored ones (the generic PolicyRepresentation's `config`):
 * role `roles` = `[{"id","required"}]` + `fetchRoles`; user `users` = `["<user id>"]`; group `groups` =
 * `[{"id","extendChildren"}]` + `groupsClaim`; client `clients` = `["<client uuid>"]`; client-scope
 * `clientScopes` = `[{"id","required"}]`; time `nbf`/`noa` (`notBefore`/`notOnOrAfter` accepted too),
 * `dayMonth`/`month`/`year`/`hour`/`minute` with their `*End`; regex `targetClaim`, `pattern`,
 * `targetContextAttributes`; js `code` (only Keycloak's default grant script).
 */

/** A group as the engine needs it: its parent (for `extendChildren`), and its name and path (for `groupsClaim`). */
export interface AuthzGroup {
  id: string;
  name?: string;
  path?: string;
  parentId?: string | null;
}

/** Who asks: what Keycloak's `KeycloakIdentity` and `EvaluationContext` know about the requester. */
export interface AuthzIdentity {
  /** The subject: a user id (the service account's user id for client credentials); null when unknown. */
  id?: string | null;
  /** Effective role ids (realm and client, composites expanded) as the token carries them. */
  roleIds?: Iterable<string>;
  /** Effective role ids read from the store, for role policies with `fetchRoles`; defaults to `roleIds`. */
  fetchedRoleIds?: Iterable<string>;
  /** Ids of the groups the user is a direct member of; their ancestors come from `AuthzRealm.group`. */
  groupIds?: Iterable<string>;
  /** The requesting client: its UUID and its clientId (Keycloak's `kc.client.id` context attribute). */
  client?: { id: string; clientId: string } | null;
  /** Ids of the client scopes of the token (its `scope` claim). */
  clientScopeIds?: Iterable<string>;
  /** The token's claims (regex policies, the group policy's `groupsClaim`). */
  claims?: Record<string, unknown>;
}

/** Realm data a provider may look up; every member is optional. */
export interface AuthzRealm {
  /** A group by id, with its parent id. Needed for `extendChildren` and for custom `groupsClaim` matching. */
  group?(id: string): AuthzGroup | undefined;
  /** Whether a role exists; a role policy skips roles that no longer exist (RolePolicyProvider). */
  roleExists?(id: string): boolean;
  /** Whether a client scope exists (ClientScopePolicyProvider skips unknown ones). */
  clientScopeExists?(id: string): boolean;
  /** A client's clientId from its UUID; when given, client policies compare it with `kc.client.id`. */
  clientIdOf?(uuid: string): string | undefined;
}

/** What a provider sees: the identity, realm look-ups, the context attributes and the evaluation time. */
export interface ProviderContext {
  identity: AuthzIdentity;
  realm: AuthzRealm;
  /** Context attributes (Keycloak's `kc.*` plus the claims pushed by the client or the admin's evaluate tool). */
  attributes: Record<string, string[]>;
  now: Date;
  /** IANA zone the time policy reads its calendar fields in (Keycloak: the server's default zone). */
  timeZone: string;
}

/** The slice of a policy a provider reads. */
export interface ProviderPolicy {
  id: string;
  name: string;
  type: string;
  config: Record<string, string>;
}

export type PolicyProvider = (policy: ProviderPolicy, ctx: ProviderContext) => boolean;

/** Parses a JSON config value; Keycloak stores lists as JSON text. Anything unreadable is `fallback`. */
export function jsonConfig<T>(value: string | undefined, fallback: T): T {
  if (value == null || value === '') return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

/** A JSON array config value as strings (ids or names); `[{"id": ...}]` entries give their id. */
export function idList(value: string | undefined): string[] {
  const parsed = jsonConfig<unknown>(value, []);
  if (!Array.isArray(parsed)) return [];
  return parsed
    .map((v) => (typeof v === 'string' ? v : v && typeof v === 'object' && 'id' in v ? String((v as { id: unknown }).id) : ''))
    .filter((v) => v !== '');
}

interface Definition {
  id: string;
  required: boolean;
  extendChildren: boolean;
}

function definitions(value: string | undefined): Definition[] {
  const parsed = jsonConfig<unknown>(value, []);
  if (!Array.isArray(parsed)) return [];
  const out: Definition[] = [];
  for (const v of parsed) {
    if (typeof v === 'string') out.push({ id: v, required: false, extendChildren: false });
    else if (v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string') {
      const d = v as { id: string; required?: unknown; extendChildren?: unknown };
      out.push({
        id: d.id,
        required: d.required === true || d.required === 'true',
        extendChildren: d.extendChildren === true || d.extendChildren === 'true',
      });
    }
  }
  return out;
}

const setOf = (values: Iterable<string> | undefined) => new Set(values ?? []);

/**
 * RolePolicyProvider: walks the roles in order; a missing `required` role denies at once, any held role
 * grants. With `fetchRoles` the user's stored roles are used instead of the token's.
 */
const rolePolicy: PolicyProvider = (policy, { identity, realm }) => {
  const held = setOf(policy.config.fetchRoles === 'true' ? (identity.fetchedRoleIds ?? identity.roleIds) : identity.roleIds);
  let granted = false;
  for (const role of definitions(policy.config.roles)) {
    if (realm.roleExists && !realm.roleExists(role.id)) continue;
    const has = held.has(role.id);
    if (!has && role.required) return false;
    if (has) granted = true;
  }
  return granted;
};

/** UserPolicyProvider: grants when the identity's id is one of `users`. */
const userPolicy: PolicyProvider = (policy, { identity }) => identity.id != null && idList(policy.config.users).includes(identity.id);

/**
 * ClientPolicyProvider: grants when the `kc.client.id` context attribute names one of `clients`
 * (stored as client UUIDs). Without a UUID → clientId look-up, the requesting client's UUID is compared.
 */
const clientPolicy: PolicyProvider = (policy, { identity, realm, attributes }) => {
  const requester = attributes['kc.client.id'] ?? [];
  for (const uuid of idList(policy.config.clients)) {
    if (realm.clientIdOf) {
      const clientId = realm.clientIdOf(uuid);
      if (clientId !== undefined && requester.includes(clientId)) return true;
    } else if (identity.client && identity.client.id === uuid) return true;
  }
  return false;
};

/** ClientScopePolicyProvider: like the role policy, over the token's client scopes. */
const clientScopePolicy: PolicyProvider = (policy, { identity, realm }) => {
  const held = setOf(identity.clientScopeIds);
  let granted = false;
  for (const scope of definitions(policy.config.clientScopes)) {
    if (realm.clientScopeExists && !realm.clientScopeExists(scope.id)) continue;
    const has = held.has(scope.id);
    if (!has && scope.required) return false;
    if (has) granted = true;
  }
  return granted;
};

/** The string values of a claim as Keycloak's identity attributes hold them (arrays give one value each). */
export function claimValues(value: unknown): string[] {
  if (value == null) return [];
  if (Array.isArray(value)) return value.filter((v) => v != null).map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v)));
  if (typeof value === 'object') return [JSON.stringify(value)];
  const s = String(value);
  return s === '' ? [] : [s];
}

/** The user's groups and all their ancestors (a loop in the parent chain stops the walk). */
function memberOf(groupIds: Iterable<string>, realm: AuthzRealm): Set<string> {
  const out = new Set<string>();
  for (const id of groupIds) {
    let current: string | null | undefined = id;
    while (current && !out.has(current)) {
      out.add(current);
      current = realm.group?.(current)?.parentId;
    }
  }
  return out;
}

/**
 * GroupPolicyProvider: the user must be a direct member of a listed group, or (with `extendChildren`)
 * of it or any descendant; then the groups claim (`groupsClaim` from the token, else the user's group
 * paths) must name the group by path, by a descendant's path (with `extendChildren`), or by name.
 */
const groupPolicy: PolicyProvider = (policy, { identity, realm }) => {
  if (identity.id == null) return false;
  const direct = setOf(identity.groupIds);
  const all = memberOf(direct, realm);
  const claimName = policy.config.groupsClaim;
  const custom = claimName ? claimValues(identity.claims?.[claimName]) : [];
  for (const def of definitions(policy.config.groups)) {
    if (!(def.extendChildren ? all.has(def.id) : direct.has(def.id))) continue;
    // With the default claim (the user's own group paths) membership is the whole test: a direct
    // member's path is the group's path, a descendant's path starts with it.
    if (custom.length === 0) return true;
    const group = realm.group?.(def.id);
    if (!group) continue;
    for (const value of custom) {
      if (value.includes('/') && group.path !== undefined) {
        if (value === group.path) return true;
        if (def.extendChildren && value.startsWith(group.path + '/')) return true;
      }
      if (group.name !== undefined && value === group.name) return true;
    }
  }
  return false;
};

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar fields of an instant in a zone. */
function zoned(date: Date, timeZone: string): Fields {
  if (timeZone === 'UTC') {
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
    };
  }
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, fmt);
  }
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(date)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour % 24, minute: parts.minute, second: parts.second };
}

const asUtc = (f: Fields) => Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second);

/** The instant of a wall-clock time in a zone (two passes settle daylight-saving edges). */
function instantOf(f: Fields, timeZone: string): number {
  const guess = asUtc(f);
  let t = guess - (asUtc(zoned(new Date(guess), timeZone)) - guess);
  const offset = asUtc(zoned(new Date(t), timeZone)) - t;
  t = guess - offset;
  return t;
}

/** Keycloak's `yyyy-MM-dd HH:mm:ss` (a bare `yyyy-MM-dd` means midnight, TimePolicyProvider#format). */
export function parseKeycloakDate(value: string, timeZone: string): number | undefined {
  const m = /^\s*(\d{1,4})-(\d{1,2})-(\d{1,2})(?:\s+(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?)?\s*$/.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = m;
  return instantOf({ year: +y, month: +mo, day: +d, hour: +h, minute: +mi, second: +s }, timeZone);
}

const TIME_FIELDS: Array<[keyof Fields, string]> = [
  ['day', 'dayMonth'],
  ['month', 'month'],
  ['year', 'year'],
  ['hour', 'hour'],
  ['minute', 'minute'],
];

/**
 * TimePolicyProvider: denies before `nbf` and after `noa` (the instant itself is allowed), and when a
 * calendar field lies outside `[field, fieldEnd]` (or differs from `field` without an end). The time is
 * the `kc.time.date_time` context attribute when given, else the clock. A value that does not parse
 * denies (Keycloak fails the whole evaluation there).
 */
const timePolicy: PolicyProvider = (policy, { attributes, now, timeZone }) => {
  const c = policy.config;
  let instant = now.getTime();
  const contextTime = attributes['kc.time.date_time']?.[0];
  if (contextTime) {
    const parsed = parseKeycloakDate(contextTime, timeZone);
    if (parsed === undefined) return false;
    instant = parsed;
  }
  const notBefore = c.nbf ?? c.notBefore;
  if (notBefore) {
    const t = parseKeycloakDate(notBefore, timeZone);
    if (t === undefined || instant < t) return false;
  }
  const notOnOrAfter = c.noa ?? c.notOnOrAfter;
  if (notOnOrAfter) {
    const t = parseKeycloakDate(notOnOrAfter, timeZone);
    if (t === undefined || instant > t) return false;
  }
  const fields = zoned(new Date(instant), timeZone);
  for (const [field, key] of TIME_FIELDS) {
    const start = c[key];
    if (start == null || start === '') continue;
    const value = fields[field];
    const from = Number.parseInt(start, 10);
    if (Number.isNaN(from)) return false;
    const endText = c[`${key}End`];
    if (endText != null && endText !== '') {
      const to = Number.parseInt(endText, 10);
      if (Number.isNaN(to) || value < from || value > to) return false;
    } else if (value !== from) return false;
  }
  return true;
};

/** Keycloak's claim path split: dots separate, `\.` is a literal dot (JsonUtils#splitClaimPath). */
function splitClaimPath(path: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i];
    if (ch === '\\' && path[i + 1] === '.') {
      current += '.';
      i++;
    } else if (ch === '.') {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.filter((p) => p !== '');
}

/** A nested value's text as Jackson prints it: strings bare, lists as `[a, b]`, objects as JSON. */
function nodeText(value: unknown): string | undefined {
  if (value == null) return undefined;
  if (Array.isArray(value)) return `[${value.map((v) => nodeText(v) ?? 'null').join(', ')}]`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * RegexPolicyProvider: the pattern must match a whole value of `targetClaim`, read from the token's
 * claims or (with `targetContextAttributes`) from the context attributes; a dotted claim is a path into
 * a JSON claim. Java and JavaScript regular expressions differ at the edges; a pattern that does not
 * compile denies.
 */
const regexPolicy: PolicyProvider = (policy, { identity, attributes }) => {
  const { targetClaim, pattern } = policy.config;
  if (!targetClaim || pattern == null) return false;
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${pattern})$`);
  } catch {
    return false;
  }
  const fromContext = policy.config.targetContextAttributes === 'true';
  const read = (name: string): unknown => (fromContext ? attributes[name] : identity.claims?.[name]);
  const hasPath = /(^|[^\\])\./.test(targetClaim);
  let values: string[];
  if (hasPath) {
    const [head, ...rest] = splitClaimPath(targetClaim);
    let node: unknown = read(head);
    if (Array.isArray(node) && fromContext) node = node[0];
    if (typeof node === 'string') node = jsonConfig<unknown>(node, undefined);
    for (const key of rest) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    const text = nodeText(node);
    values = text === undefined ? [] : [text];
  } else values = claimValues(read(targetClaim));
  return values.some((v) => regex.test(v));
};

/**
 * JSPolicyProvider, only as far as Keycloak's own "Default Policy" needs it: a script whose only
 * statement is `$evaluation.grant();` grants. Any other script is not run and does not grant.
 */
const jsPolicy: PolicyProvider = (policy) => {
  const code = (policy.config.code ?? '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/[^\n]*/g, '')
    .replace(/\s+/g, '');
  return code === '$evaluation.grant();' || code === '$evaluation.grant()';
};

/** The providers by policy type; `aggregate`, `resource` and `scope` are the engine's own. */
export const policyProviders: Readonly<Record<string, PolicyProvider>> = {
  role: rolePolicy,
  user: userPolicy,
  group: groupPolicy,
  client: clientPolicy,
  'client-scope': clientScopePolicy,
  time: timePolicy,
  regex: regexPolicy,
  js: jsPolicy,
};
