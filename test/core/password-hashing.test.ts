// @database-independent
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashPassword, verifyPassword } from '../../src/auth/passwords';

/**
 * Password hashes (src/auth/passwords.ts, hash-workers.ts) give Keycloak's hashes and run on worker
 * threads of their own at the lowest CPU priority, so that the event loop keeps its share of the cores
 * while logins saturate them (issue 12).
 */

const stored = (value: Buffer, salt: Buffer, algorithm: string, hashIterations: number, additionalParameters = {}) => ({
  secretData: JSON.stringify({ value: value.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
  credentialData: JSON.stringify({ hashIterations, algorithm, additionalParameters }),
});

test("argon2id with Keycloak's parameters: a known answer (computed by the reference C implementation) verifies", async () => {
  // 'secret', salt 16 × 0x07, argon2id v1.3, 7168 KiB, 5 iterations, parallelism 1, 32 bytes.
  const credential = stored(Buffer.from('N6QCrufeAJNj5cVQwQ1hXZxGzfF9T4D28GyYGmJLtyo=', 'base64'), Buffer.alloc(16, 7), 'argon2', 5, {
    hashLength: ['32'],
    memory: ['7168'],
    type: ['id'],
    version: ['1.3'],
    parallelism: ['1'],
  });
  expect(await verifyPassword('secret', credential)).toBe(true);
  expect(await verifyPassword('Secret', credential)).toBe(false);
});

test('pbkdf2 credentials imported from older Keycloak realms verify (RFC 6070 vector)', async () => {
  const credential = stored(Buffer.from('0c60c80f961f0e71f3a9b524af6012062fe037a6', 'hex'), Buffer.from('salt'), 'pbkdf2', 1);
  expect(await verifyPassword('password', credential)).toBe(true);
  expect(await verifyPassword('passw0rd', credential)).toBe(false);
});

test('new hashes verify, with a salt of their own each time; many at once all come back right', async () => {
  const [a, b] = await Promise.all([hashPassword('pw-1'), hashPassword('pw-1')]);
  expect(JSON.parse(a.secretData).salt).not.toBe(JSON.parse(b.secretData).salt);
  const checks = await Promise.all(Array.from({ length: 12 }, (_, i) => verifyPassword(i % 3 ? 'pw-1' : 'wrong', i % 2 ? a : b)));
  expect(checks).toEqual(Array.from({ length: 12 }, (_, i) => i % 3 !== 0));
  const sha512 = await hashPassword('pw-2', 'pbkdf2-sha512', 1000);
  expect(await verifyPassword('pw-2', sha512)).toBe(true);
});

test('hashes run on threads lowered to nice 19; the thread that runs JavaScript keeps its priority', async () => {
  if (process.platform !== 'linux') return;
  await hashPassword('warm');
  const nice = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
  const tids = readdirSync('/proc/self/task');
  expect(tids.filter((t) => nice(t) === 19).length).toBeGreaterThanOrEqual(1);
  expect(nice(String(process.pid))).toBe(0);
});

test('a process that awaits only a hash waits for it, and exits once the workers are idle', () => {
  // A CLI (import, bench seeding) may have nothing else keeping it alive while a hash runs: a pending
  // job must hold the process, an idle worker must not.
  const script = `require('./src/auth/passwords').hashPassword('pw').then((h) => console.log('hashed', JSON.parse(h.secretData).value.length))`;
  const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: join(__dirname, '../..'),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(out.trim()).toBe('hashed 44');
});
