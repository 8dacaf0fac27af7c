import type { AdminApi } from './server';

/**
 * A confidential client with a service account, created through `POST /clients` as a user would:
 * the server generates the `service-account-<clientId>` user and links the realm's default scopes.
 */
export async function serviceAccountClient(
  api: AdminApi,
  realm: string,
  clientId: string,
  secret: string,
): Promise<{ id: string; userId: string }> {
  const base = `/admin/realms/${realm}/clients`;
  const res = await api.post(base, { clientId, secret, publicClient: false, serviceAccountsEnabled: true, standardFlowEnabled: false });
  if (res.status !== 201) throw new Error(`client: ${res.status} ${JSON.stringify(res.body)}`);
  const id = String(res.headers.location).split('/').pop() as string;
  const user = await api.get(`${base}/${id}/service-account-user`);
  if (user.status !== 200) throw new Error(`service account: ${user.status} ${JSON.stringify(user.body)}`);
  return { id, userId: user.body.id as string };
}
