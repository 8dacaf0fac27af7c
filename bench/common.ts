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
