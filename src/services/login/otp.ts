import { randomInt } from 'node:crypto';
import { HOTP, Secret, TOTP } from 'otpauth';
import type { Db } from '../../db';
import type { CredentialModel } from '../../db/models/user';
import type { RealmModel } from '../../db/models/realm';

/**
 * One-time passwords as Keycloak keeps them: the realm's OTP policy (`otpPolicy*` settings), a
 * credential of type `otp` whose secretData is `{"value": <secret>}` (the secret's UTF-8 bytes are
 * the HMAC key, shown base32-encoded) and whose credentialData is `{subType, digits, counter, period,
 * algorithm}`. Codes are computed and checked with the `otpauth` library.
 */
export interface OtpPolicy {
  type: 'totp' | 'hotp';
  algorithm: string;
  digits: number;
  period: number;
  lookAheadWindow: number;
  initialCounter: number;
}

const num = (v: unknown, fallback: number) => (Number.isFinite(Number(v)) && v !== null && v !== '' ? Number(v) : fallback);

export function otpPolicy(realm: RealmModel): OtpPolicy {
  const s = realm.settings;
  return {
    type: s.otpPolicyType === 'hotp' ? 'hotp' : 'totp',
    algorithm: typeof s.otpPolicyAlgorithm === 'string' ? s.otpPolicyAlgorithm : 'HmacSHA1',
    digits: num(s.otpPolicyDigits, 6),
    period: num(s.otpPolicyPeriod, 30),
    lookAheadWindow: num(s.otpPolicyLookAheadWindow, 1),
    initialCounter: num(s.otpPolicyInitialCounter, 0),
  };
}

/** HmacSHA1 → SHA1, the name otpauth knows. */
const libAlgorithm = (a: string) => a.replace(/^Hmac/i, '').toUpperCase();

const SECRET_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A new secret as Keycloak makes one: 20 random letters and digits. */
export function newOtpSecret(): string {
  let s = '';
  for (let i = 0; i < 20; i++) s += SECRET_CHARS[randomInt(SECRET_CHARS.length)];
  return s;
}

export const encodedSecret = (value: string) => new Secret({ buffer: new Uint8Array(Buffer.from(value, 'utf8')).buffer }).base32;

export interface OtpData {
  subType: 'totp' | 'hotp';
  digits: number;
  counter: number;
  period: number;
  algorithm: string;
}

function generator(value: string, data: OtpData, label = '', issuer = '') {
  const secret = new Secret({ buffer: new Uint8Array(Buffer.from(value, 'utf8')).buffer });
  const common = { secret, digits: data.digits, algorithm: libAlgorithm(data.algorithm), label, issuer };
  return data.subType === 'hotp' ? new HOTP({ ...common, counter: data.counter }) : new TOTP({ ...common, period: data.period });
}

/** The otpauth:// URI an authenticator app scans. */
export function otpUri(value: string, data: OtpData, realmName: string, username: string): string {
  return generator(value, data, username, realmName).toString();
}

/**
 * Checks a code: TOTP within ± the look-ahead window of periods, HOTP within the window after the
 * counter. Returns the next counter for HOTP (to store), the same for TOTP, or null when the code is wrong.
 */
export function checkOtp(value: string, data: OtpData, token: string, window: number): number | null {
  const t = token.replace(/\s/g, '');
  if (!/^\d+$/.test(t) || t.length !== data.digits) return null;
  const g = generator(value, data);
  if (g instanceof HOTP) {
    const delta = g.validate({ token: t, counter: data.counter, window });
    if (delta === null || delta < 0) return null;
    return data.counter + delta + 1;
  }
  return g.validate({ token: t, window }) === null ? null : data.counter;
}

export const otpDataOf = (c: CredentialModel): OtpData => JSON.parse(c.credentialData) as OtpData;
export const otpValueOf = (c: CredentialModel): string => (JSON.parse(c.secretData) as { value: string }).value;

/** Checks a code against the user's OTP credentials (HOTP counters move on); true when one accepts it. */
export async function verifyUserOtp(db: Db, realm: RealmModel, userId: string, token: string): Promise<boolean> {
  const window = otpPolicy(realm).lookAheadWindow;
  const rows = await db.models.Credential.findAll({ where: { userId, type: 'otp' }, order: [['priority', 'ASC']] });
  for (const c of rows) {
    const data = otpDataOf(c);
    const next = checkOtp(otpValueOf(c), data, token, window);
    if (next === null) continue;
    if (data.subType === 'hotp') {
      c.credentialData = JSON.stringify({ ...data, counter: next });
      await c.save();
    }
    return true;
  }
  return false;
}
