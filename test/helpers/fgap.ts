import { expectStatus } from './fixtures';
import type { AdminApi } from './server';

type Rep = Record<string, unknown>;

/**
 * Attaches policies to a scope permission of a resource server (`rsPath`: `.../clients/{id}/authz/
 * resource-server`), as the admin console does: the permission is PUT back with its resources, scopes
 * and the policies. Fine-grained admin permissions decide nothing until a permission has policies.
 */
export async function attachPolicies(api: AdminApi, rsPath: string, permissionId: string, policyIds: string[]): Promise<void> {
  const p = expectStatus(await api.get(`${rsPath}/permission/scope/${permissionId}`), 200, 'permission').body;
  const resources = (await api.get(`${rsPath}/policy/${permissionId}/resources`)).body.map((r: Rep) => r._id);
  const scopes = (await api.get(`${rsPath}/policy/${permissionId}/scopes`)).body.map((s: Rep) => s.id);
  expectStatus(
    await api.put(`${rsPath}/permission/scope/${permissionId}`, { ...p, resources, scopes, policies: policyIds }),
    201,
    'attach',
  );
}
