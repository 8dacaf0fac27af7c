import { ADMIN, type TestServer } from './server';

/**
 * The real `@keycloak/keycloak-admin-client`, unchanged. It is published as ESM only; jest loads it
 * through its vm-modules support with a dynamic import (docs/adr/0006).
 */
export type KcAdminClient = import('@keycloak/keycloak-admin-client', { with: { 'resolution-mode': 'import' }}).default;
export type KcAdminClientClass = new (cfg: { baseUrl: string; realmName: string }) => KcAdminClient;

export async function adminClientClass(): Promise<KcAdminClientClass> {
  return (await import('@keycloak/keycloak-admin-client')).default as unknown as KcAdminClientClass;
}

/** Makes the server listen and returns an admin client logged in as the master admin through admin-cli. */
export async function masterAdminClient(ts: TestServer): Promise<{ kc: KcAdminClient; baseUrl: string; Client: KcAdminClientClass }> {
  const baseUrl = await ts.listen();
  const Client = await adminClientClass();
  const kc = new Client({ baseUrl, realmName: 'master' });
  await kc.auth({ username: ADMIN.username, password: ADMIN.password, grantType: 'password', clientId: 'admin-cli' });
  return { kc, baseUrl, Client };
}

/** The master admin's client, pointed at a new enabled realm `realm` (extra fields go into its representation). */
export async function realmAdminClient(
  ts: TestServer,
  realm: string,
  extra: Record<string, unknown> = {},
): Promise<{ kc: KcAdminClient; baseUrl: string; Client: KcAdminClientClass }> {
  const out = await masterAdminClient(ts);
  await out.kc.realms.create({ realm, enabled: true, ...extra });
  out.kc.setConfig({ realmName: realm });
  return out;
}
