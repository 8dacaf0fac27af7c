import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
/** The master admin's password-grant form (bootstrap admin/admin). */
export const ADMIN_PASSWORD_FORM = 'grant_type=password&client_id=admin-cli&username=admin&password=admin';

/** What the benchmarks share: an admin bearer header from the server under test. */
export async function adminAuthHeader(base: string): Promise<{ authorization: string }> {
  const res = await fetch(`${base}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: ADMIN_PASSWORD_FORM,
  });
  const tok = (await res.json()) as { access_token: string };
  return { authorization: `Bearer ${tok.access_token}` };
}

/** Drops and creates the MariaDB database `name` (utf8mb4_bin, as idserver's preflight requires) on the server of `url`. */
export async function recreateMariaDb(url: URL, name: string): Promise<void> {
  const conn = await createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username) || 'root',
    password: decodeURIComponent(url.password) || undefined,
  });
  await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await conn.end();
}

/**
 * Starts a child process of the benchmark (`args` after node; under ts-node unless `typescript` is
 * false) in the project's folder and resolves with its URL from its "listening on" line; its stderr is
 * passed on, prefixed with `name`.
 */
export function startChild(name: string, args: string[], typescript = true): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [...(typescript ? ['-r', 'ts-node/register/transpile-only'] : []), ...args], {
    cwd: join(__dirname, '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (!m) return;
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      // Keep draining so a chatty child never blocks on a full pipe.
      child.stdout?.resume();
      child.stderr?.on('data', (e: Buffer) => process.stderr.write(`[${name}] ${e}`));
      resolve({ child, base: m[1].replace(/\/$/, '') });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening:\n${out}`)));
  });
}
