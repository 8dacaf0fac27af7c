import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { verifyPassword } from '../../auth/passwords';
import { clock } from '../../core/clock';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { type HttpError, errorA, errorB } from '../../core/errors';
import { POLICY_TYPES, type PolicyKind } from '../../keycloak/password-policy-types';

/**
 * The realm's password policy (`passwordPolicy`, e.g. `length(8) and digits(1) and notUsername(undefined)`):
 * parsing with Keycloak's config errors, the checks a new password must pass (Keycloak's message keys
 * and English texts, shape B errors), and the hashing settings (`hashAlgorithm`, `hashIterations`).
 * `passwordBlacklist(<file>)` reads a word list from `data/password-blacklists/<file>` (one word a
 * line, compared lower-case), or the directory in IDSERVER_PASSWORD_BLACKLISTS_DIR.
 */
export interface PolicyItem {
  id: string;
  /** Parsed value: a number, a string, a RegExp, a word set, or null. */
  value: unknown;
  /** The original config text (regexPattern error params). */
  raw: string | null;
}

const HASH_ALGORITHMS = new Set(['argon2', 'pbkdf2-sha512', 'pbkdf2-sha256', 'pbkdf2']);

const blacklists = new Map<string, Set<string>>();

function loadBlacklist(name: string): Set<string> {
  const dir = process.env.IDSERVER_PASSWORD_BLACKLISTS_DIR ?? join(process.cwd(), 'data', 'password-blacklists');
  const file = resolve(dir, name);
  let set = blacklists.get(file);
  if (!set) {
    if (!name || !file.startsWith(resolve(dir))) throw new Error('Password blacklist not found');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`Password blacklist not found: ${name}`);
    }
    set = new Set(
      text
        .split(/\r?\n/)
        .map((w) => w.trim().toLowerCase())
        .filter(Boolean),
    );
    blacklists.set(file, set);
  }
  return set;
}

function parseValue(id: string, kind: PolicyKind, raw: string | null): unknown {
  const text = raw === null || raw === 'undefined' ? POLICY_TYPES[id].dflt : raw;
  switch (kind) {
    case 'int': {
      const t = (text ?? '').trim();
      if (!/^[-+]?\d+$/.test(t)) throw new Error('Not a valid number');
      return Number(t);
    }
    case 'regex':
      try {
        return new RegExp(`^(?:${text ?? ''})$`, 'u');
      } catch {
        throw new Error('Not a valid regular expression');
      }
    case 'hash':
      if (!HASH_ALGORITHMS.has(String(text))) throw new Error('Password hashing provider not found');
      return text;
    case 'blacklist':
      return loadBlacklist(String(text ?? ''));
    default:
      return text;
  }
}

/** Parses a policy string; a bad one is Keycloak's 400 `{"errorMessage": ...}` (realm update). */
export function parsePasswordPolicy(text: unknown): PolicyItem[] {
  if (text === undefined || text === null) return [];
  const s = String(text).trim();
  if (!s) return [];
  const items: PolicyItem[] = [];
  for (const part of s.split(/\s+and\s+/)) {
    const p = part.trim();
    if (!p) continue;
    const open = p.indexOf('(');
    const id = (open < 0 ? p : p.slice(0, open)).trim();
    const raw = open < 0 ? null : p.slice(open + 1, p.lastIndexOf(')') > open ? p.lastIndexOf(')') : p.length);
    const type = POLICY_TYPES[id];
    if (!type) throw errorA(400, 'Password policy not found');
    try {
      items.push({ id, value: parseValue(id, type.kind, raw), raw });
    } catch (e) {
      throw errorA(400, `Invalid config for ${id}: ${(e as Error).message}`);
    }
  }
  return items;
}

/** The realm's parsed policy (an unparseable stored policy counts as none). */
export function realmPolicy(realm: RealmModel): PolicyItem[] {
  try {
    return parsePasswordPolicy(realm.settings.passwordPolicy);
  } catch {
    return [];
  }
}

const policyValue = (items: PolicyItem[], id: string) => items.find((i) => i.id === id)?.value;

/** Hash algorithm and iterations the policy asks for (argon2 and its defaults otherwise). */
export function hashSettings(realm: RealmModel): { algorithm: string; iterations?: number } {
  const items = realmPolicy(realm);
  const iterations = policyValue(items, 'hashIterations') as number | undefined;
  return {
    algorithm: (policyValue(items, 'hashAlgorithm') as string | undefined) ?? 'argon2',
    iterations: iterations !== undefined && iterations > 0 ? iterations : undefined,
  };
}

/** `passwordAge(days)`: no password used in the last `days` days may be set again; -1 without the policy. */
export const passwordAgeDays = (realm: RealmModel) => Number(policyValue(realmPolicy(realm), 'passwordAge') ?? -1);

/** `passwordHistory(n)`: how many passwords (the current one included) may not be reused; 0 without the policy. */
export const historyCount = (realm: RealmModel) => Number(policyValue(realmPolicy(realm), 'passwordHistory') ?? 0);

/**
 * `forceExpiredPasswordChange(days)`: true when a password set at `createdDate` (ms) has expired at
 * `now` (ms), so the user must update it before logging in (Keycloak's UpdatePassword trigger).
 */
export function passwordExpired(realm: RealmModel, createdDate: number, now: number): boolean {
  const days = Number(policyValue(realmPolicy(realm), 'forceExpiredPasswordChange') ?? 0);
  return days > 0 && createdDate + days * 86_400_000 < now;
}

export const PASSWORD_POLICY_MESSAGES: Record<string, string> = {
  invalidPasswordMinLengthMessage: 'Invalid password: minimum length {0}.',
  invalidPasswordMaxLengthMessage: 'Invalid password: maximum length {0}.',
  invalidPasswordMinDigitsMessage: 'Invalid password: must contain at least {0} numerical digits.',
  invalidPasswordMinLowerCaseCharsMessage: 'Invalid password: must contain at least {0} lower case characters.',
  invalidPasswordMinUpperCaseCharsMessage: 'Invalid password: must contain at least {0} upper case characters.',
  invalidPasswordMinSpecialCharsMessage: 'Invalid password: must contain at least {0} special characters.',
  invalidPasswordNotUsernameMessage: 'Invalid password: must not be equal to the username.',
  invalidPasswordNotContainsUsernameMessage: 'Invalid password: Can not contain the username.',
  invalidPasswordNotEmailMessage: 'Invalid password: must not be equal to the email.',
  invalidPasswordRegexPatternMessage: 'Invalid password: fails to match regex pattern(s).',
  invalidPasswordHistoryMessage: 'Invalid password: must not be equal to any of last {0} passwords.',
  invalidPasswordBlacklistedMessage: 'Invalid password: password is blacklisted.',
  invalidPasswordGenericMessage: "Invalid password: new password doesn't match password policies.",
};

/** Keycloak's 400 for a policy violation: `{"error": <message key>, "error_description": <text>}`. */
export function policyError(key: string, param?: unknown): HttpError & { policyParam: string } {
  const err = errorB(400, key, (PASSWORD_POLICY_MESSAGES[key] ?? key).replace('{0}', String(param ?? '')));
  // The login page shows the message in the page's locale: it needs the key and the parameter apart.
  return Object.assign(err, { policyParam: String(param ?? '') });
}

const count = (s: string, re: RegExp) => [...s].filter((c) => re.test(c)).length;

export interface PasswordSubject {
  /** Existing user (for the history check); absent on create. */
  userId?: string;
  username?: string | null;
  email?: string | null;
}

/** The first violated rule of the realm's policy as Keycloak's 400, or null when the password passes. */
export async function checkPasswordPolicy(
  db: Db,
  realm: RealmModel,
  who: PasswordSubject,
  password: string,
): Promise<(HttpError & { policyParam: string }) | null> {
  for (const { id, value } of realmPolicy(realm)) {
    const n = value as number;
    const lower = password.toLowerCase();
    switch (id) {
      case 'length':
        if (password.length < n) return policyError('invalidPasswordMinLengthMessage', n);
        break;
      case 'maxLength':
        if (password.length > n) return policyError('invalidPasswordMaxLengthMessage', n);
        break;
      case 'digits':
        if (count(password, /\p{Nd}/u) < n) return policyError('invalidPasswordMinDigitsMessage', n);
        break;
      case 'lowerCase':
        if (count(password, /\p{Ll}/u) < n) return policyError('invalidPasswordMinLowerCaseCharsMessage', n);
        break;
      case 'upperCase':
        if (count(password, /\p{Lu}/u) < n) return policyError('invalidPasswordMinUpperCaseCharsMessage', n);
        break;
      case 'specialChars':
        if (count(password, /[^\p{L}\p{Nd}]/u) < n) return policyError('invalidPasswordMinSpecialCharsMessage', n);
        break;
      case 'notUsername':
        if (who.username && lower === who.username.toLowerCase()) return policyError('invalidPasswordNotUsernameMessage');
        break;
      case 'notContainsUsername':
        if (who.username && lower.includes(who.username.toLowerCase())) return policyError('invalidPasswordNotContainsUsernameMessage');
        break;
      case 'notEmail':
        if (who.email && lower === who.email.toLowerCase()) return policyError('invalidPasswordNotEmailMessage');
        break;
      case 'regexPattern':
        if (!(value as RegExp).test(password)) return policyError('invalidPasswordRegexPatternMessage');
        break;
      case 'passwordBlacklist':
        if ((value as Set<string>).has(lower)) return policyError('invalidPasswordBlacklistedMessage');
        break;
      case 'passwordHistory':
        if (who.userId && n > 0 && (await usedRecently(db, who.userId, password, n)))
          return policyError('invalidPasswordHistoryMessage', n);
        break;
      case 'passwordAge':
        // Keycloak's AgePasswordPolicyProvider: the current password, and for days > 0 any kept one made since.
        if (who.userId && n >= 0 && (await usedWithinDays(db, who.userId, password, n)))
          return policyError('invalidPasswordGenericMessage', n);
        break;
      default:
        break;
    }
  }
  return null;
}

/** True when the password equals the current one or, for `days` > 0, a history entry made in the last `days` days. */
async function usedWithinDays(db: Db, userId: string, password: string, days: number): Promise<boolean> {
  const { Credential } = db.models;
  const current = await Credential.findAll({ where: { userId, type: 'password' } });
  const since = clock.now() - days * 86_400_000;
  const history =
    days > 0
      ? (await Credential.findAll({ where: { userId, type: 'password-history' } })).filter((c) => Number(c.createdDate ?? 0) > since)
      : [];
  for (const c of [...current, ...history]) if (await verifyPassword(password, c)) return true;
  return false;
}

/** True when the password equals the current one or one of the newest `n - 1` history entries. */
async function usedRecently(db: Db, userId: string, password: string, n: number): Promise<boolean> {
  const { Credential } = db.models;
  const current = await Credential.findAll({ where: { userId, type: 'password' } });
  const history =
    n > 1 ? await Credential.findAll({ where: { userId, type: 'password-history' }, order: [['createdDate', 'DESC']], limit: n - 1 }) : [];
  for (const c of [...current, ...history]) if (await verifyPassword(password, c)) return true;
  return false;
}
