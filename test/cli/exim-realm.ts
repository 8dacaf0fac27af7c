import {
  expectStatus,
  createClient,
  createClientScope,
  createdId,
  createGroup,
  createRole,
  createUser,
  grantClientRoles,
} from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';

/**
 * A realm holding one of everything an export carries, built through the admin REST API as a user
 * would: realm settings and localization, realm roles with composites (a client role among the
 * children) and attributes, a client role, a group tree with attributes, role mappings and a default
 * group, a confidential client with a service account, a protocol mapper, a scope mapping and an
 * optional scope, a client scope with a mapper and a scope mapping, an identity provider with a
 * mapper, a flow with an execution and its config, an extra key provider, the user profile, and
 * users with passwords, attributes, roles, groups, an identity link and required actions.
 */
export async function seedEverything(ts: TestServer, api: AdminApi, R: string): Promise<void> {
  const base = `/admin/realms/${R}`;
  const ok = async (p: Promise<{ status: number; body: unknown }>, status: number, what: string) =>
    expectStatus((await p) as never, status, what);
  await ok(
    api.put(base, { displayName: 'Exim realm', registrationAllowed: true, attributes: { frontendUrl: '' }, passwordPolicy: 'length(3)' }),
    204,
    'realm settings',
  );
  await ok(api.post(`${base}/localization/en`, { greeting: 'Hello' }), 204, 'localization');
  const profile = (await api.get(`${base}/users/profile`)).body;
  await ok(api.put(`${base}/users/profile`, { ...profile, unmanagedAttributePolicy: 'ENABLED' }), 200, 'user profile');

  const reader = await createRole(api, R, 'reader', { description: 'reads', attributes: { level: ['1'] } });
  const writer = await createRole(api, R, 'writer');
  const app = await createClient(api, R, {
    clientId: 'billing',
    publicClient: false,
    secret: 'billing-secret',
    serviceAccountsEnabled: true,
    fullScopeAllowed: false,
    redirectUris: ['https://billing.example.com/*'],
    attributes: { 'pkce.code.challenge.method': 'S256' },
  });
  await ok(api.post(`${base}/clients/${app}/roles`, { name: 'invoice', description: 'invoices' }), 201, 'client role');
  const invoice = (await api.get(`${base}/clients/${app}/roles/invoice`)).body;
  await ok(api.post(`${base}/roles/writer/composites`, [reader, invoice]), 204, 'composites');
  await ok(
    api.post(`${base}/clients/${app}/protocol-mappers/models`, {
      name: 'tenant',
      protocol: 'openid-connect',
      protocolMapper: 'oidc-hardcoded-claim-mapper',
      config: { 'claim.name': 'tenant', 'claim.value': 'acme', 'jsonType.label': 'String', 'access.token.claim': 'true' },
    }),
    201,
    'client mapper',
  );
  await ok(api.post(`${base}/clients/${app}/scope-mappings/realm`, [reader]), 204, 'client scope mapping');
  const svc = (await api.get(`${base}/clients/${app}/service-account-user`)).body.id as string;
  await ok(api.post(`${base}/users/${svc}/role-mappings/realm`, [writer]), 204, 'service account role');

  const scope = await createClientScope(api, R, 'departments', {
    description: 'the department',
    attributes: { 'include.in.token.scope': 'true' },
  });
  await ok(
    api.post(`${base}/client-scopes/${scope}/protocol-mappers/models`, {
      name: 'department',
      protocol: 'openid-connect',
      protocolMapper: 'oidc-usermodel-attribute-mapper',
      config: { 'user.attribute': 'department', 'claim.name': 'department', 'jsonType.label': 'String', 'id.token.claim': 'true' },
    }),
    201,
    'scope mapper',
  );
  await ok(api.post(`${base}/client-scopes/${scope}/scope-mappings/realm`, [reader]), 204, 'scope mapping');
  await ok(api.put(`${base}/clients/${app}/optional-client-scopes/${scope}`), 204, 'optional scope');

  const staff = await createGroup(api, R, 'staff', undefined, { attributes: { floor: ['3'] } });
  const ops = await createGroup(api, R, 'ops', staff);
  await ok(api.post(`${base}/groups/${staff}/role-mappings/realm`, [writer]), 204, 'group role');
  await ok(api.post(`${base}/groups/${ops}/role-mappings/clients/${app}`, [invoice]), 204, 'group client role');
  await createGroup(api, R, 'newcomers');
  const newcomers = (await api.get(`${base}/groups?search=newcomers`)).body[0].id as string;
  await ok(api.put(`${base}/default-groups/${newcomers}`), 204, 'default group');

  await ok(
    api.post(`${base}/identity-provider/instances`, {
      alias: 'github',
      providerId: 'github',
      config: { clientId: 'gh-id', clientSecret: 'gh-secret', syncMode: 'IMPORT' },
    }),
    201,
    'identity provider',
  );
  await ok(
    api.post(`${base}/identity-provider/instances/github/mappers`, {
      name: 'team',
      identityProviderAlias: 'github',
      identityProviderMapper: 'hardcoded-attribute-idp-mapper',
      config: { attribute: 'team', 'attribute.value': 'platform', syncMode: 'INHERIT' },
    }),
    201,
    'identity provider mapper',
  );

  await ok(
    api.post(`${base}/authentication/flows`, {
      alias: 'sso-first',
      providerId: 'basic-flow',
      topLevel: true,
      builtIn: false,
      description: 'GitHub first',
    }),
    201,
    'flow',
  );
  await ok(
    api.post(`${base}/authentication/flows/sso-first/executions/execution`, { provider: 'identity-provider-redirector' }),
    201,
    'execution',
  );
  const [execution] = (await api.get(`${base}/authentication/flows/sso-first/executions`)).body;
  await ok(
    api.post(`${base}/authentication/executions/${execution.id}/config`, { alias: 'to-github', config: { defaultProvider: 'github' } }),
    201,
    'authenticator config',
  );
  const realmId = (await api.get(base)).body.id as string;
  await ok(
    api.post(`${base}/components`, {
      name: 'extra-hmac',
      providerId: 'hmac-generated',
      providerType: 'org.keycloak.keys.KeyProvider',
      parentId: realmId,
      config: { priority: ['50'], algorithm: ['HS384'] },
    }),
    201,
    'key provider',
  );

  // Users: passwords, attributes, a role, a client role, a group, an identity link; one without credentials but with required actions.
  const alice = await createUser(ts, R, 'alice', { password: 'alice-pw', extra: { attributes: { department: ['finance'] } } });
  await ok(api.post(`${base}/users/${alice}/role-mappings/realm`, [reader]), 204, 'user role');
  await grantClientRoles(api, R, alice, 'billing', ['invoice']);
  await ok(api.put(`${base}/users/${alice}/groups/${ops}`), 204, 'membership');
  await ok(api.post(`${base}/users/${alice}/federated-identity/github`, { userId: 'gh-1', userName: 'alice-gh' }), 204, 'identity link');
  await createUser(ts, R, 'bob', { password: 'bob-pw', defaultRoles: true });
  createdId(
    await api.post(`${base}/users`, { username: 'carol', enabled: true, requiredActions: ['VERIFY_EMAIL', 'UPDATE_PASSWORD'] }),
    'user',
  );

  // An organization with a domain, an attribute, a linked provider and a member (its user comes in a later file).
  await ok(api.put(base, { organizationsEnabled: true }), 204, 'organizations on');
  const org = createdId(
    await api.post(`${base}/organizations`, {
      name: 'Exim Org',
      alias: 'exim',
      domains: [{ name: 'exim.example.org' }],
      attributes: { a: ['1'] },
    }),
    'organization',
  );
  await ok(
    api.post(`${base}/organizations/${org}/identity-providers`, '"github"').set('Content-Type', 'application/json'),
    204,
    'org provider',
  );
  await ok(
    api.post(`${base}/organizations/${org}/members`, JSON.stringify(alice)).set('Content-Type', 'application/json'),
    201,
    'org member',
  );
}
