import { randomBytes, timingSafeEqual } from 'node:crypto';
import { HASH_WORKERS, rawHash } from './hash-workers';
import { passwordHashing } from '../metrics';

/**
 * Password hashing as Keycloak does it: argon2id (Keycloak 24+ default: version 1.3, 32-byte hash,
 * 7168 KiB memory, 5 iterations, parallelism 1, 16-byte salt), and pbkdf2 variants for verifying
 * credentials imported from older Keycloak realms. The stored JSON has Keycloak's layout, so a realm
 * exported from Keycloak with hashed credentials can be imported and its users log in.
 */
export interface StoredPassword {
  secretData: string;
  credentialData: string;
}

interface CredentialData {
  hashIterations: number;
  algorithm: string;
  additionalParameters?: Record<string, string[]>;
}

/**
 * Hashes run on low-priority worker threads, one per core (hash-workers.ts). At most one hash per
 * worker runs at once (that saturates the cores); the others wait their turn here, in arrival order.
 */
const HASH_SLOTS = HASH_WORKERS;
let hashing = 0;
const waiting: Array<() => void> = [];

async function inHashSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (hashing >= HASH_SLOTS) await new Promise<void>((resolve) => waiting.push(resolve));
  else hashing++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else hashing--;
  }
}

const ARGON2 = { hashLength: 32, memory: 7168, iterations: 5, parallelism: 1 };

const PBKDF2: Record<string, { digest: string; iterations: number; keyBits: number }> = {
  pbkdf2: { digest: 'sha1', iterations: 27500, keyBits: 512 },
  'pbkdf2-sha256': { digest: 'sha256', iterations: 27500, keyBits: 256 },
  'pbkdf2-sha512': { digest: 'sha512', iterations: 210000, keyBits: 512 },
};

export const DEFAULT_HASH_ALGORITHM = 'argon2';

/** Hashes a password with the given algorithm (default argon2) and optional iteration count. */
export async function hashPassword(password: string, algorithm = DEFAULT_HASH_ALGORITHM, iterations?: number): Promise<StoredPassword> {
  return inHashSlot(async () => {
    // Timed in its slot: the metric is the hash's own time, not its wait for a slot.
    const end = passwordHashing.startTimer({ operation: 'hash' });
    try {
      return await hashUntimed(password, algorithm, iterations);
    } finally {
      end();
    }
  });
}

async function hashUntimed(password: string, algorithm: string, iterations?: number): Promise<StoredPassword> {
  const salt = randomBytes(16);
  if (algorithm === 'argon2') {
    const timeCost = iterations ?? ARGON2.iterations;
    const hash = await rawHash({
      kind: 'argon2',
      password,
      salt,
      type: 'id',
      version: 0x13,
      hashLength: ARGON2.hashLength,
      memory: ARGON2.memory,
      iterations: timeCost,
      parallelism: ARGON2.parallelism,
    });
    return {
      secretData: JSON.stringify({ value: hash.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
      credentialData: JSON.stringify({
        hashIterations: timeCost,
        algorithm: 'argon2',
        additionalParameters: {
          hashLength: [String(ARGON2.hashLength)],
          memory: [String(ARGON2.memory)],
          type: ['id'],
          version: ['1.3'],
          parallelism: [String(ARGON2.parallelism)],
        },
      }),
    };
  }
  const p = PBKDF2[algorithm];
  if (!p) throw new Error(`Unsupported hash algorithm ${algorithm}`);
  const n = iterations ?? p.iterations;
  const key = await rawHash({ kind: 'pbkdf2', password, salt, iterations: n, keyLength: p.keyBits / 8, digest: p.digest });
  return {
    secretData: JSON.stringify({ value: key.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
    credentialData: JSON.stringify({ hashIterations: n, algorithm, additionalParameters: {} }),
  };
}

const param = (d: CredentialData, k: string, dflt: string) => d.additionalParameters?.[k]?.[0] ?? dflt;

/** Verifies a password against a stored Keycloak credential (argon2 or pbkdf2 family). */
export async function verifyPassword(password: string, stored: StoredPassword): Promise<boolean> {
  return inHashSlot(async () => {
    const end = passwordHashing.startTimer({ operation: 'verify' });
    try {
      return await verifyUntimed(password, stored);
    } finally {
      end();
    }
  });
}

async function verifyUntimed(password: string, stored: StoredPassword): Promise<boolean> {
  let secret: { value: string; salt: string };
  let data: CredentialData;
  try {
    secret = JSON.parse(stored.secretData);
    data = JSON.parse(stored.credentialData);
  } catch {
    return false;
  }
  const expected = Buffer.from(secret.value, 'base64');
  const salt = Buffer.from(secret.salt, 'base64');
  let actual: Buffer;
  if (data.algorithm === 'argon2') {
    const type = param(data, 'type', 'id');
    actual = await rawHash({
      kind: 'argon2',
      password,
      salt,
      type: type === 'i' ? 'i' : type === 'd' ? 'd' : 'id',
      version: param(data, 'version', '1.3') === '1.0' ? 0x10 : 0x13,
      hashLength: Number(param(data, 'hashLength', String(expected.length))),
      memory: Number(param(data, 'memory', String(ARGON2.memory))),
      iterations: data.hashIterations,
      parallelism: Number(param(data, 'parallelism', '1')),
    });
  } else {
    const p = PBKDF2[data.algorithm];
    if (!p) return false;
    actual = await rawHash({
      kind: 'pbkdf2',
      password,
      salt,
      iterations: data.hashIterations,
      keyLength: expected.length,
      digest: p.digest,
    });
  }
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Dummy credentials by algorithm and iterations (few distinct values: one per realm password policy). */
const dummies = new Map<string, Promise<StoredPassword>>();

/**
 * A credential of no one, hashed with the given algorithm: the token endpoint verifies the offered
 * password against it when there is no real credential to check (unknown user, locked user), so that
 * path costs the same hash as a wrong password and does not tell which usernames exist.
 */
export function dummyPassword(algorithm = DEFAULT_HASH_ALGORITHM, iterations?: number): Promise<StoredPassword> {
  const key = `${algorithm}/${iterations ?? ''}`;
  let stored = dummies.get(key);
  if (!stored) {
    if (dummies.size >= 32) dummies.clear();
    stored = hashPassword(randomBytes(16).toString('base64'), algorithm, iterations);
    dummies.set(key, stored);
    stored.catch(() => dummies.delete(key));
  }
  return stored;
}
