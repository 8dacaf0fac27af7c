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
