import { randomBytes, randomUUID } from 'node:crypto';
import { type StoredPassword, hashPassword } from '../../auth/passwords';
import type { RealmModel } from '../../db/models/realm';
import type { CredentialRep } from '../../representations/credential';
import { cannotParse, errorA } from '../../core/errors';
import { memo, type RequestContext } from '../../core/context';
import { findGroupByPath } from '../groups/group-paths';
import { type PasswordSubject, checkPasswordPolicy, hashSettings } from './password-policy';
import type { AttributeRules } from './user-profile';

/**
 * Reading a UserRepresentation body: text fields, the attribute map, required actions, group
 * paths and credentials (passwords are hashed here, before any transaction starts).
 */

/** undefined when absent or null (keep on update); null for a blank string; else the trimmed text. */
export function textField(v: unknown): string | null | undefined {
  if (v === undefined || v === null) return undefined;
  const s = String(v).trim();
  return s ? s : null;
}

/** Normalises `attributes`: name → values; a single value becomes a one-value list. Undefined when absent. */
export function normalizeAttributes(v: unknown): Record<string, string[]> | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw cannotParse('mapping');
  const out: Record<string, string[]> = {};
  for (const [name, raw] of Object.entries(v)) {
    const list = Array.isArray(raw) ? raw : raw === null || raw === undefined ? [] : [raw];
    const values: string[] = [];
    for (const x of list) {
      if (x === null || x === undefined) continue;
      if (typeof x === 'object') throw cannotParse('mapping');
      values.push(String(x));
    }
    if (name.length > 255) throw cannotParse('mapping');
    out[name] = values;
  }
  return out;
}

/** The part of an attribute map an admin may write (blank values dropped, empty lists removed). */
export function writableAttributes(rules: AttributeRules, attrs: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (!rules.canWrite(k)) continue;
    const values = v.filter((x) => x.trim() !== '');
    if (values.length) out[k] = values;
  }
  return out;
}

let lastMs = 0;
let seq = 0;

/** UUIDs (version-7 layout) that sort in creation order, so multi-valued attributes keep their order. */
export function orderedUuid(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    seq++;
    if (seq > 0xfff) {
      lastMs++;
      seq = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    seq = 0;
  }
  const t = ms.toString(16).padStart(12, '0');
  const r = randomBytes(8).toString('hex');
  const variant = ((parseInt(r[0], 16) & 0x3) | 0x8).toString(16);
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${seq.toString(16).padStart(3, '0')}-${variant}${r.slice(1, 4)}-${r.slice(4, 16)}`;
}

/** One user_attribute row per value. */
export function attributeRows(userId: string, attrs: Record<string, string[]>) {
  return Object.entries(attrs).flatMap(([name, values]) => values.map((value) => ({ id: orderedUuid(), userId, name, value })));
}

export interface RequiredActionSets {
  /** Aliases of the realm's enabled required actions. */
  enabled: Set<string>;
  /** Enabled actions marked `defaultAction`, added to every new user. */
  defaults: string[];
}

/** The realm's enabled required actions (read once per request). */
export function requiredActionSets(ctx: RequestContext, realm: RealmModel): Promise<RequiredActionSets> {
  return memo(ctx, `required-actions:${realm.id}`, async () => {
    const rows = await ctx.db.models.RequiredAction.findAll({
      where: { realmId: realm.id, enabled: true },
      attributes: ['alias', 'defaultAction'],
    });
    return { enabled: new Set(rows.map((r) => r.alias)), defaults: rows.filter((r) => r.defaultAction).map((r) => r.alias) };
  });
}

/** Keeps the listed actions that are enabled required actions of the realm (unknown ones are ignored). */
export function knownActions(sets: RequiredActionSets, list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return [...new Set(list.filter((a): a is string => typeof a === 'string' && sets.enabled.has(a)))];
}

/** Group ids for the paths of `rep.groups`; an unknown path is 400 `Could not create user`. */
export async function groupIdsForPaths(ctx: RequestContext, realm: RealmModel, paths: unknown): Promise<string[]> {
  if (!Array.isArray(paths)) return [];
  const ids: string[] = [];
  for (const p of paths) {
    const g = typeof p === 'string' ? await findGroupByPath(ctx, realm, p) : null;
    if (!g) throw errorA(400, 'Could not create user');
    ids.push(g.id);
  }
  return [...new Set(ids)];
}

export interface CredentialRow {
  id: string;
  type: string;
  userLabel: string | null;
  secretData: string;
  credentialData: string;
  priority: number;
  createdDate: number;
}

export interface PreparedCredentials {
  rows: CredentialRow[];
  /** A password credential marked temporary: the user gets UPDATE_PASSWORD. */
  temporary: boolean;
  /** Types being set (an existing credential of such a type is replaced). */
  types: Set<string>;
}

const str = (v: unknown) => (v === undefined || v === null ? null : String(v));

/** The realm's password policy applied to plain passwords (`imported`: realm import's error body). */
export interface PolicyCheck extends PasswordSubject {
  ctx: RequestContext;
  realm: RealmModel;
  imported?: boolean;
  /** Credential ids as given (`idserver import`). */
  keepIds?: boolean;
}

/**
 * Password hashes computed ahead of a write, by credential representation: a bulk create hashes its
 * users' passwords in parallel before its transaction (src/services/bulk), and
 * {@link prepareCredentials} takes the hash from here instead of hashing again.
 */
export const hashedAhead = new WeakMap<object, Promise<StoredPassword>>();

/** Password hashes computed at once ahead of a write (argon2 runs on libuv's pool of 4 threads: two stay free). */
const HASHES_AT_ONCE = 2;

/**
 * Hashes the plain passwords of users about to be created before the write's transaction starts, a
 * few at a time, with the realm's hash settings; {@link prepareCredentials} takes them from
 * {@link hashedAhead}. A password costs tens of milliseconds to hash: hashed one by one inside the
 * transaction, a thousand of them would hold the database's write lock (SQLite has a single writer)
 * for most of a minute. Used by bulk creates, realm import and partial import.
 */
export async function hashPasswordsAhead(realm: Pick<RealmModel, 'settings'>, reps: readonly unknown[]): Promise<void> {
  const { algorithm, iterations } = hashSettings(realm as RealmModel);
  const jobs: Array<{ credential: object; password: string }> = [];
  for (const rep of reps) {
    const credentials = rep && typeof rep === 'object' ? (rep as { credentials?: unknown }).credentials : undefined;
    for (const c of Array.isArray(credentials) ? (credentials as unknown[]) : []) {
      if (!c || typeof c !== 'object' || hashedAhead.has(c)) continue;
      const { type, value, rawPassword } = c as { type?: unknown; value?: unknown; rawPassword?: unknown };
      const password = value ?? rawPassword;
      if ((type ?? 'password') === 'password' && typeof password === 'string' && password !== '') jobs.push({ credential: c, password });
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const hash = hashPassword(job.password, algorithm, iterations);
      hashedAhead.set(job.credential, hash);
      // A failed hash is the error of its user's write, when it gets there.
      await hash.catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: HASHES_AT_ONCE }, worker));
}

/**
 * Hashes plain passwords (after the realm's password policy accepted them, with its hash algorithm)
 * and takes hashed credentials (`secretData`/`credentialData`) as they are.
 */
export async function prepareCredentials(list: unknown, policy?: PolicyCheck): Promise<PreparedCredentials> {
  const out: PreparedCredentials = { rows: [], temporary: false, types: new Set() };
  if (!Array.isArray(list)) return out;
  for (const c of list as Array<CredentialRep | null>) {
    if (!c || typeof c !== 'object') continue;
    const type = str(c.type) ?? 'password';
    const base = {
      id: policy?.keepIds && typeof c.id === 'string' && c.id ? c.id : randomUUID(),
      type,
      userLabel: str(c.userLabel),
      priority: Number(c.priority ?? 10),
      createdDate: Number(c.createdDate ?? Date.now()),
    };
    let secret: { secretData: string; credentialData: string } | null = null;
    const plain = c.value ?? c.rawPassword;
    if (type === 'password' && typeof plain === 'string' && plain !== '') {
      if (policy) {
        const violation = await checkPasswordPolicy(policy.ctx.db, policy.realm, policy, plain);
        if (violation) throw policy.imported ? errorA(400, 'Password policy not met. See logs for details') : violation;
      }
      const hash = policy ? hashSettings(policy.realm) : undefined;
      secret = await (hashedAhead.get(c) ?? hashPassword(plain, hash?.algorithm, hash?.iterations));
    } else if (c.secretData != null && c.credentialData != null) {
      secret = { secretData: String(c.secretData), credentialData: String(c.credentialData) };
    } else if (type === 'password' && c.hashedSaltedValue != null) {
      const salt = c.salt == null ? '' : String(c.salt);
      secret = {
        secretData: JSON.stringify({ value: String(c.hashedSaltedValue), salt, additionalParameters: {} }),
        credentialData: JSON.stringify({
          hashIterations: Number(c.hashIterations ?? 27500),
          algorithm: str(c.algorithm) ?? 'pbkdf2-sha256',
          additionalParameters: {},
        }),
      };
    }
    if (!secret) continue;
    out.rows.push({ ...base, ...secret });
    out.types.add(type);
    if (type === 'password' && c.temporary === true) out.temporary = true;
  }
  return out;
}
