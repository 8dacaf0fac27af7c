// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import {
  type AuthzIdentity,
  type AuthzModelInput,
  type AuthzPolicyInput,
  AuthzRequestError,
  type EvaluationInput,
  evaluateAuthorization,
  indexAuthzModel,
  type PermissionRequest,
  parsePermissionParameter,
} from '../../src/services/authz/evaluation';
import { toEvaluationResponse } from '../../src/services/authz/evaluation-response';

/**
 * The decision engine of the authorization services (src/services/authz/evaluation.ts) against
 * Keycloak 26's rules: policy logic, decision strategies of permissions and of the resource server,
 * resource- and scope-based permissions, typed resources, enforcement modes, the policy providers,
 * and the two outputs (the RPT's permissions claim and the admin's evaluate response).
 */

const SERVER = 'rs-client-uuid';
const READ = { id: 'scope-read', name: 'read' };
const WRITE = { id: 'scope-write', name: 'write' };
const DELETE = { id: 'scope-delete', name: 'delete' };
const ALICE = 'user-alice';

/** Resources: a scoped document, a scope-less report, a typed account template and alice's own account. */
const RESOURCES = [
  { _id: 'res-doc', name: 'doc', owner: { id: SERVER, name: 'app' }, scopes: [READ, WRITE, DELETE] },
  { _id: 'res-report', name: 'report', owner: { id: SERVER, name: 'app' }, uris: ['/report'], scopes: [] },
  { _id: 'res-account-type', name: 'account', type: 'urn:app:account', owner: SERVER, scopes: [READ, WRITE] },
  { _id: 'res-alice-account', name: 'alice account', type: 'urn:app:account', owner: { id: ALICE }, scopes: [] },
];

const cfg = (o: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
const rolePolicy = (
  id: string,
  roles: Array<{ id: string; required?: boolean }>,
  extra: Partial<AuthzPolicyInput> = {},
): AuthzPolicyInput => ({
  id,
  name: id,
  type: 'role',
  config: cfg({ roles, fetchRoles: 'false' }),
  ...extra,
});
const userPolicy = (id: string, users: string[], extra: Partial<AuthzPolicyInput> = {}): AuthzPolicyInput => ({
  id,
  name: id,
  type: 'user',
  config: cfg({ users }),
  ...extra,
});
const resourcePermission = (
  id: string,
  resources: string[],
  policies: string[],
  extra: Partial<AuthzPolicyInput> = {},
): AuthzPolicyInput => ({
  id,
  name: id,
  type: 'resource',
  resources,
  policies,
  ...extra,
});
const scopePermission = (
  id: string,
  resources: string[],
  scopes: string[],
  policies: string[],
  extra: Partial<AuthzPolicyInput> = {},
): AuthzPolicyInput => ({
  id,
  name: id,
  type: 'scope',
  resources,
  scopes,
  policies,
  ...extra,
});

/** Policies every test can apply: alice yes, bob no, a role alice holds and one she does not. */
const BASE_POLICIES: AuthzPolicyInput[] = [
  userPolicy('is-alice', [ALICE]),
  userPolicy('is-bob', ['user-bob']),
  rolePolicy('has-user-role', [{ id: 'role-user' }]),
  rolePolicy('has-admin-role', [{ id: 'role-admin' }]),
];

function model(policies: AuthzPolicyInput[], mode = 'ENFORCING', strategy = 'UNANIMOUS'): AuthzModelInput {
  return {
    server: { id: SERVER, clientId: SERVER, policyEnforcementMode: mode, decisionStrategy: strategy },
    resources: RESOURCES,
    scopes: [READ, WRITE, DELETE],
    policies: [...BASE_POLICIES, ...policies],
  };
}

const alice: AuthzIdentity = { id: ALICE, roleIds: ['role-user'], client: { id: 'client-uuid-web', clientId: 'web' } };

const evaluate = (m: AuthzModelInput, permissions?: PermissionRequest[], extra: Partial<EvaluationInput> = {}) =>
  evaluateAuthorization(m, { identity: alice, permissions, timeZone: 'UTC', ...extra });

/** `{resource name: granted scope names}` of an outcome, for the granted resources only. */
function granted(outcome: ReturnType<typeof evaluate>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const d of outcome.decisions) if (d.granted) out[d.resource?.name ?? '*'] = d.grantedScopes.map((s) => s.name);
  return out;
}

const ask = (resource: string, ...scopes: string[]): PermissionRequest => ({ resource, scopes });

describe('policy logic', () => {
  test.each([
    ['POSITIVE', 'is-alice', true],
    ['NEGATIVE', 'is-alice', false],
    ['POSITIVE', 'is-bob', false],
    ['NEGATIVE', 'is-bob', true],
  ])('a %s policy that %s: granted=%s', (logic, base, expected) => {
    const policy = { ...BASE_POLICIES.find((p) => p.id === base)!, id: 'p', name: 'p', logic };
    const out = evaluate(model([policy, resourcePermission('perm', ['res-report'], ['p'])]), [ask('report')]);
    expect(out.decisions[0].granted).toBe(expected);
    expect(out.decisions[0].policies[0].associatedPolicies[0].status).toBe(expected ? 'PERMIT' : 'DENY');
  });
});

describe("a permission's decision strategy over its policies", () => {
  const permission = (strategy: string, policies: string[]) =>
    evaluate(model([resourcePermission('perm', ['res-report'], policies, { decisionStrategy: strategy })]), [ask('report')]).decisions[0];

  test('UNANIMOUS: every policy must permit', () => {
    expect(permission('UNANIMOUS', ['is-alice', 'has-user-role']).granted).toBe(true);
    expect(permission('UNANIMOUS', ['is-alice', 'is-bob']).granted).toBe(false);
  });
  test('AFFIRMATIVE: one permit is enough', () => {
    expect(permission('AFFIRMATIVE', ['is-bob', 'is-alice']).granted).toBe(true);
    expect(permission('AFFIRMATIVE', ['is-bob', 'has-admin-role']).granted).toBe(false);
  });
  test('CONSENSUS: more permits than denies (a tie denies)', () => {
    expect(permission('CONSENSUS', ['is-alice', 'has-user-role', 'is-bob']).granted).toBe(true);
    expect(permission('CONSENSUS', ['is-alice', 'is-bob']).granted).toBe(false);
    expect(permission('CONSENSUS', ['is-alice', 'is-bob', 'has-admin-role']).granted).toBe(false);
  });
  test('the permission reports its own status and each policy effect', () => {
    const d = permission('AFFIRMATIVE', ['is-bob', 'is-alice']);
    expect(d.policies.map((p) => [p.policy.name, p.status])).toEqual([['perm', 'PERMIT']]);
    expect(d.policies[0].associatedPolicies.map((p) => [p.policy.name, p.status])).toEqual([
      ['is-bob', 'DENY'],
      ['is-alice', 'PERMIT'],
    ]);
  });
});

describe('resource and scope permissions', () => {
  test('a resource permission by resource id grants every asked scope of the resource', () => {
    const out = evaluate(model([resourcePermission('doc-perm', ['res-doc'], ['is-alice'])]), [ask('res-doc', 'read', 'write')]);
    expect(granted(out)).toEqual({ doc: ['read', 'write'] });
    expect(out.permissions).toEqual([{ rsid: 'res-doc', rsname: 'doc', scopes: ['read', 'write'] }]);
  });

  test('resources are asked by name too, and without scopes mean all their scopes', () => {
    const out = evaluate(model([resourcePermission('doc-perm', ['res-doc'], ['is-alice'])]), [ask('doc')]);
    expect(granted(out)).toEqual({ doc: ['read', 'write', 'delete'] });
  });

  test('a resource permission by resource type covers every resource of that type', () => {
    const typed = resourcePermission('accounts', [], ['is-alice'], { resourceType: 'urn:app:account' });
    const out = evaluate(model([typed]), [ask('account'), ask('res-alice-account')]);
    // alice's own account inherits the scopes of the server's typed resource (Permissions#resolveScopes)
    expect(granted(out)).toEqual({ account: ['read', 'write'], 'alice account': ['read', 'write'] });
    // config `defaultResourceType`, as Keycloak stores it, works the same
    const stored = { ...typed, resourceType: undefined, config: { defaultResourceType: 'urn:app:account' } };
    expect(granted(evaluate(model([stored]), [ask('account')]))).toEqual({ account: ['read', 'write'] });
  });

  test("a user's typed resource is governed by the permissions on the server's resource of that type", () => {
    const out = evaluate(model([resourcePermission('template', ['res-account-type'], ['is-alice'])]), [ask('res-alice-account', 'read')]);
    expect(granted(out)).toEqual({ 'alice account': ['read'] });
  });

  test('scope permissions grant exactly their scopes on the resource', () => {
    const out = evaluate(
      model([
        scopePermission('doc-read', ['res-doc'], ['scope-read'], ['is-alice']),
        scopePermission('doc-write', ['res-doc'], ['scope-write'], ['is-bob']),
      ]),
      [ask('doc')],
    );
    expect(granted(out)).toEqual({ doc: ['read'] });
    expect(out.permissions).toEqual([{ rsid: 'res-doc', rsname: 'doc', scopes: ['read'] }]);
  });

  test('a scope permission without resources applies to every resource with the scope, and to the scope alone', () => {
    const m = model([scopePermission('any-read', [], ['scope-read'], ['is-alice'])]);
    expect(granted(evaluate(m, [ask('doc', 'read', 'write')]))).toEqual({ doc: ['read'] });
    // only scopes asked: every resource having one of them
    expect(granted(evaluate(m, [{ scopes: ['read'] }]))).toEqual({ doc: ['read'], account: ['read'] });
  });

  test('a scope no resource has is decided on its own and granted without a resource', () => {
    const m: AuthzModelInput = {
      ...model([scopePermission('orphan', [], ['scope-orphan'], ['is-alice'])]),
      scopes: [READ, { id: 'scope-orphan', name: 'orphan' }],
    };
    const out = evaluate(m, [{ scopes: ['orphan'] }]);
    expect(out.decisions[0].resource).toBeNull();
    expect(out.permissions).toEqual([{ scopes: ['orphan'] }]);
  });

  test('a permission with no policies votes nothing: denied, even under PERMISSIVE', () => {
    const out = evaluate(model([resourcePermission('empty', ['res-report'], [])], 'PERMISSIVE'), [ask('report')]);
    expect(out.decisions[0]).toMatchObject({ granted: false, evaluated: false });
  });
});

describe('enforcement modes', () => {
  const m = (mode: string) => model([resourcePermission('doc-perm', ['res-doc'], ['is-bob'])], mode);

  test('ENFORCING: a resource no permission covers is denied', () => {
    const out = evaluate(m('ENFORCING'), [ask('report'), ask('doc', 'read')]);
    expect(granted(out)).toEqual({});
    expect(out.permissions).toEqual([]);
  });
  test('PERMISSIVE: a resource no permission covers is granted, covered ones are still decided', () => {
    const out = evaluate(m('PERMISSIVE'), [ask('report'), ask('doc', 'read')]);
    expect(granted(out)).toEqual({ report: [] });
    expect(out.permissions).toEqual([{ rsid: 'res-report', rsname: 'report' }]);
  });
  test('DISABLED: everything asked is granted', () => {
    const out = evaluate(m('DISABLED'), [ask('report'), ask('doc', 'read')]);
    expect(granted(out)).toEqual({ report: [], doc: ['read'] });
  });
  test('no permissions asked: every resource of the server and of the user, with all its scopes', () => {
    const out = evaluate(m('DISABLED'), undefined);
    expect(granted(out)).toEqual({
      doc: ['read', 'write', 'delete'],
      report: [],
      account: ['read', 'write'],
      'alice account': ['read', 'write'],
    });
    const bob = evaluateAuthorization(m('DISABLED'), { identity: { id: 'user-bob' } });
    expect(Object.keys(granted(bob))).toEqual(['doc', 'report', 'account']);
  });
});

describe("the resource server's decision strategy over several permissions", () => {
  const conflicting = (strategy: string) =>
    model(
      [scopePermission('doc-write-yes', ['res-doc'], ['scope-write'], ['is-alice']), resourcePermission('doc-no', ['res-doc'], ['is-bob'])],
      'ENFORCING',
      strategy,
    );

  test.each([
    ['UNANIMOUS', undefined],
    ['CONSENSUS', undefined],
    ['AFFIRMATIVE', ['write']],
  ])('a scope granted by one permission and denied by another, %s → %p', (strategy, expected) => {
    const out = evaluate(conflicting(strategy), [ask('doc', 'write')]);
    expect(granted(out).doc).toEqual(expected);
  });

  test.each([
    ['UNANIMOUS', ['read']],
    ['CONSENSUS', ['read']],
    ['AFFIRMATIVE', ['read', 'write']],
  ])('a resource permission grants, a scope permission denies one scope, %s → %p', (strategy, expected) => {
    const m = model(
      [resourcePermission('doc-yes', ['res-doc'], ['is-alice']), scopePermission('doc-write-no', ['res-doc'], ['scope-write'], ['is-bob'])],
      'ENFORCING',
      strategy,
    );
    expect(granted(evaluate(m, [ask('doc', 'read', 'write')])).doc).toEqual(expected);
  });

  test('two scope permissions on the same scope, one granting: only AFFIRMATIVE grants', () => {
    const policies = [
      scopePermission('w1', ['res-doc'], ['scope-write'], ['is-alice']),
      scopePermission('w2', [], ['scope-write'], ['is-bob']),
    ];
    expect(granted(evaluate(model(policies, 'ENFORCING', 'UNANIMOUS'), [ask('doc', 'write')]))).toEqual({});
    expect(granted(evaluate(model(policies, 'ENFORCING', 'AFFIRMATIVE'), [ask('doc', 'write')]))).toEqual({ doc: ['write'] });
  });

  test('a resource without scopes is denied by any denying permission, even under AFFIRMATIVE (Keycloak)', () => {
    for (const strategy of ['UNANIMOUS', 'AFFIRMATIVE', 'CONSENSUS']) {
      const m = model(
        [resourcePermission('yes', ['res-report'], ['is-alice']), resourcePermission('no', ['res-report'], ['is-bob'])],
        'ENFORCING',
        strategy,
      );
      expect(evaluate(m, [ask('report')]).decisions[0].granted).toBe(false);
    }
  });

  test('all permissions granting: granted under every strategy', () => {
    for (const strategy of ['UNANIMOUS', 'AFFIRMATIVE', 'CONSENSUS']) {
      const m = model(
        [resourcePermission('a', ['res-doc'], ['is-alice']), scopePermission('b', ['res-doc'], ['scope-read'], ['has-user-role'])],
        'ENFORCING',
        strategy,
      );
      expect(granted(evaluate(m, [ask('doc', 'read')]))).toEqual({ doc: ['read'] });
    }
  });
});

describe('policy providers', () => {
  const decide = (policy: AuthzPolicyInput, identity: AuthzIdentity = alice, extra: Partial<EvaluationInput> = {}) =>
    evaluateAuthorization(model([policy, resourcePermission('perm', ['res-report'], [policy.id])]), {
      identity,
      permissions: [ask('report')],
      timeZone: 'UTC',
      ...extra,
    }).decisions[0].granted;

  test('role: any held role grants; a missing required role denies', () => {
    expect(decide(rolePolicy('r', [{ id: 'role-admin' }, { id: 'role-user' }]))).toBe(true);
    expect(decide(rolePolicy('r', [{ id: 'role-admin', required: true }, { id: 'role-user' }]))).toBe(false);
    expect(
      decide(
        rolePolicy('r', [
          { id: 'role-user', required: true },
          { id: 'role-other', required: false },
        ]),
      ),
    ).toBe(true);
    expect(decide(rolePolicy('r', [{ id: 'role-admin' }]))).toBe(false);
    // roles that no longer exist are skipped, required or not
    const realm = { roleExists: (id: string) => id !== 'role-gone' };
    expect(decide(rolePolicy('r', [{ id: 'role-gone', required: true }, { id: 'role-user' }]), alice, { realm })).toBe(true);
    // fetchRoles reads the stored roles instead of the token's
    const fetch = rolePolicy('r', [{ id: 'role-admin' }], { config: cfg({ roles: [{ id: 'role-admin' }], fetchRoles: 'true' }) });
    expect(decide(fetch, { ...alice, fetchedRoleIds: ['role-admin'] })).toBe(true);
  });

  describe('group', () => {
    // /staff, /staff/sales, /staff/sales/emea
    const groups = new Map([
      ['g-staff', { id: 'g-staff', name: 'staff', path: '/staff', parentId: null }],
      ['g-sales', { id: 'g-sales', name: 'sales', path: '/staff/sales', parentId: 'g-staff' }],
      ['g-emea', { id: 'g-emea', name: 'emea', path: '/staff/sales/emea', parentId: 'g-sales' }],
    ]);
    const realm = { group: (id: string) => groups.get(id) };
    const groupPolicy = (extendChildren: boolean, groupsClaim = '') => ({
      id: 'g',
      name: 'g',
      type: 'group',
      config: cfg({ groups: [{ id: 'g-staff', extendChildren }], groupsClaim }),
    });
    const member = (...groupIds: string[]): AuthzIdentity => ({ ...alice, groupIds });

    test('a direct member is granted with or without extendChildren', () => {
      expect(decide(groupPolicy(false), member('g-staff'), { realm })).toBe(true);
      expect(decide(groupPolicy(true), member('g-staff'), { realm })).toBe(true);
    });
    test('members of subgroups (at any depth) only with extendChildren', () => {
      expect(decide(groupPolicy(false), member('g-emea'), { realm })).toBe(false);
      expect(decide(groupPolicy(true), member('g-emea'), { realm })).toBe(true);
      expect(decide(groupPolicy(true), member(), { realm })).toBe(false);
    });
    test('with a groups claim, the claim must also name the group (path, descendant path or name)', () => {
      const claims = (value: unknown) => ({ ...member('g-sales'), claims: { groups: value } });
      expect(decide(groupPolicy(true, 'groups'), claims(['/staff/sales']), { realm })).toBe(true);
      expect(decide(groupPolicy(true, 'groups'), claims(['staff']), { realm })).toBe(true);
      expect(decide(groupPolicy(true, 'groups'), claims(['/other']), { realm })).toBe(false);
    });
    test('no user, no grant', () => {
      expect(decide(groupPolicy(true), { groupIds: ['g-staff'] }, { realm })).toBe(false);
    });
  });

  test('user, client and client scope', () => {
    expect(decide(userPolicy('u', ['x', ALICE]))).toBe(true);
    const client = (clients: string[]) => ({ id: 'c', name: 'c', type: 'client', config: cfg({ clients }) });
    expect(decide(client(['client-uuid-web']))).toBe(true);
    expect(decide(client(['client-uuid-other']))).toBe(false);
    // with a UUID → clientId look-up the `kc.client.id` attribute decides (the evaluate tool may override it)
    const realm = { clientIdOf: (uuid: string) => ({ 'client-uuid-web': 'web', 'client-uuid-other': 'other' })[uuid] };
    expect(decide(client(['client-uuid-other']), alice, { realm, attributes: { 'kc.client.id': 'other' } })).toBe(true);
    const scopes = (clientScopes: unknown) => ({ id: 's', name: 's', type: 'client-scope', config: cfg({ clientScopes }) });
    const withScopes = { ...alice, clientScopeIds: ['cs-profile'] };
    expect(decide(scopes([{ id: 'cs-profile', required: false }]), withScopes)).toBe(true);
    expect(decide(scopes([{ id: 'cs-profile' }, { id: 'cs-email', required: true }]), withScopes)).toBe(false);
  });

  test('regex on a token claim, a nested claim, or a context attribute', () => {
    const regex = (config: Record<string, string>) => ({ id: 'x', name: 'x', type: 'regex', config });
    const withClaims = { ...alice, claims: { email: 'alice@example.com', address: { country: 'NL' } } };
    expect(decide(regex({ targetClaim: 'email', pattern: '.*@example\\.com' }), withClaims)).toBe(true);
    expect(decide(regex({ targetClaim: 'email', pattern: 'example' }), withClaims)).toBe(false);
    expect(decide(regex({ targetClaim: 'address.country', pattern: 'N.' }), withClaims)).toBe(true);
    const context = regex({ targetClaim: 'department', pattern: 'sales|ops', targetContextAttributes: 'true' });
    expect(decide(context, alice, { attributes: { department: 'ops' } })).toBe(true);
    expect(decide(regex({ targetClaim: 'email', pattern: '(' }), withClaims)).toBe(false);
  });

  describe('time', () => {
    const time = (config: Record<string, string>) => ({ id: 't', name: 't', type: 'time', config });
    // Wednesday 2025-03-12 14:30:00 UTC
    const at = (iso = '2025-03-12T14:30:00Z') => ({ now: new Date(iso) });

    test('not before / not on or after', () => {
      expect(decide(time({ nbf: '2025-03-12 14:00:00' }), alice, at())).toBe(true);
      expect(decide(time({ nbf: '2025-03-12 15:00:00' }), alice, at())).toBe(false);
      expect(decide(time({ noa: '2025-03-13' }), alice, at())).toBe(true);
      expect(decide(time({ noa: '2025-03-12' }), alice, at())).toBe(false);
      // Keycloak allows the `noa` instant itself
      expect(decide(time({ noa: '2025-03-12 14:30:00' }), alice, at())).toBe(true);
      expect(decide(time({ notBefore: '2025-03-12 15:00:00' }), alice, at())).toBe(false);
    });
    test('day of month, month, year, hour and minute windows', () => {
      expect(decide(time({ dayMonth: '10', dayMonthEnd: '15' }), alice, at())).toBe(true);
      expect(decide(time({ dayMonth: '13', dayMonthEnd: '20' }), alice, at())).toBe(false);
      expect(decide(time({ dayMonth: '12' }), alice, at())).toBe(true);
      expect(decide(time({ hour: '9', hourEnd: '17' }), alice, at())).toBe(true);
      expect(decide(time({ hour: '9', hourEnd: '17' }), alice, at('2025-03-12T18:00:00Z'))).toBe(false);
      expect(decide(time({ hour: '14', minute: '0', minuteEnd: '29' }), alice, at())).toBe(false);
      expect(decide(time({ month: '3', year: '2025', yearEnd: '2026' }), alice, at())).toBe(true);
      expect(decide(time({ month: '4' }), alice, at())).toBe(false);
    });
    test('fields are read in the configured zone, and the context time overrides the clock', () => {
      // 14:30 UTC is 23:30 in Tokyo
      expect(decide(time({ hour: '23' }), alice, { ...at(), timeZone: 'Asia/Tokyo' })).toBe(true);
      expect(decide(time({ nbf: '2025-03-12 23:00:00' }), alice, { ...at(), timeZone: 'Asia/Tokyo' })).toBe(true);
      expect(decide(time({ hour: '8' }), alice, { ...at(), attributes: { 'kc.time.date_time': '2025-03-12 08:15:00' } })).toBe(true);
    });
    test('a NEGATIVE time policy denies inside the window', () => {
      expect(decide({ ...time({ hour: '9', hourEnd: '17' }), logic: 'NEGATIVE' }, alice, at())).toBe(false);
    });
  });

  test('aggregates nest, each level with its own strategy and logic', () => {
    const inner: AuthzPolicyInput = {
      id: 'inner',
      name: 'inner',
      type: 'aggregate',
      decisionStrategy: 'AFFIRMATIVE',
      policies: ['is-bob', 'is-alice'],
    };
    const outer: AuthzPolicyInput = {
      id: 'outer',
      name: 'outer',
      type: 'aggregate',
      decisionStrategy: 'UNANIMOUS',
      policies: ['inner', 'has-user-role'],
    };
    const m = (extra: AuthzPolicyInput[]) => model([inner, ...extra, resourcePermission('perm', ['res-report'], [extra.at(-1)!.id])]);
    expect(evaluate(m([outer]), [ask('report')]).decisions[0].granted).toBe(true);
    expect(evaluate(m([{ ...outer, logic: 'NEGATIVE' }]), [ask('report')]).decisions[0].granted).toBe(false);
    const strict = { ...outer, id: 'strict', name: 'strict', policies: ['inner', 'has-admin-role'] };
    expect(evaluate(m([strict]), [ask('report')]).decisions[0].granted).toBe(false);
    // config `applyPolicies` with policy names, as an export writes it
    const exported: AuthzPolicyInput = {
      id: 'exp',
      name: 'exp',
      type: 'aggregate',
      config: { applyPolicies: '["inner","has-user-role"]' },
    };
    expect(evaluate(m([exported]), [ask('report')]).decisions[0].granted).toBe(true);
    // a cycle denies instead of looping
    const loop: AuthzPolicyInput = { id: 'loop', name: 'loop', type: 'aggregate', policies: ['loop', 'is-alice'] };
    expect(evaluate(m([loop]), [ask('report')]).decisions[0].granted).toBe(false);
  });
});

test("Keycloak's defaults (Default Resource, Default Policy, Default Permission) grant any user everything", () => {
  const m: AuthzModelInput = {
    server: { id: SERVER, clientId: SERVER, policyEnforcementMode: 'ENFORCING', decisionStrategy: 'UNANIMOUS' },
    resources: [{ _id: 'res-default', name: 'Default Resource', type: 'urn:app:resources:default', owner: { id: SERVER }, uris: ['/*'] }],
    policies: [
      {
        id: 'pol-default',
        name: 'Default Policy',
        type: 'js',
        logic: 'POSITIVE',
        decisionStrategy: 'AFFIRMATIVE',
        config: { code: '// by default, grants any permission associated with this policy\n$evaluation.grant();\n' },
      },
      {
        id: 'perm-default',
        name: 'Default Permission',
        type: 'resource',
        config: { defaultResourceType: 'urn:app:resources:default', applyPolicies: '["Default Policy"]' },
      },
    ],
  };
  const out = evaluateAuthorization(m, { identity: { id: 'anyone' } });
  expect(out.permissions).toEqual([{ rsid: 'res-default', rsname: 'Default Resource' }]);
  // any other script is not run: it does not grant
  const other = { ...m, policies: [{ ...m.policies![0], config: { code: 'if (x) $evaluation.grant();' } }, m.policies![1]] };
  expect(evaluateAuthorization(other, { identity: { id: 'anyone' } }).permissions).toEqual([]);
});

describe('requests', () => {
  const m = model([resourcePermission('doc-perm', ['res-doc'], ['is-alice'])]);

  test('an unknown resource is invalid_resource; unknown scopes are invalid_scope for the UMA grant only', () => {
    expect(() => evaluate(m, [ask('nope')])).toThrow(new AuthzRequestError('invalid_resource', 'Resource with id [nope] does not exist.'));
    const err = (() => {
      try {
        evaluate(m, [ask('doc', 'fly', 'swim')], { validateScopes: true });
      } catch (e) {
        return e as AuthzRequestError;
      }
    })();
    expect(err).toMatchObject({ error: 'invalid_scope', description: 'One of the given scopes [fly, swim] is invalid' });
    expect(granted(evaluate(m, [ask('doc', 'fly', 'read')], { validateScopes: true }))).toEqual({ doc: ['read'] });
  });

  test("the UMA grant's permission parameter", () => {
    expect(parsePermissionParameter('doc#read,write')).toEqual({ resource: 'doc', scopes: ['read', 'write'] });
    expect(parsePermissionParameter('doc')).toEqual({ resource: 'doc', scopes: [] });
    expect(parsePermissionParameter('#read')).toEqual({ resource: null, scopes: ['read'] });
    expect(granted(evaluate(m, ['doc#read', '#write'].map(parsePermissionParameter)))).toEqual({ doc: ['read', 'write'] });
  });

  test('asks for one resource merge; resource-type references pick typed resources', () => {
    const out = evaluate(m, [ask('doc', 'read'), ask('res-doc', 'write')]);
    expect(out.decisions).toHaveLength(1);
    expect(out.permissions).toEqual([{ rsid: 'res-doc', rsname: 'doc', scopes: ['read', 'write'] }]);
    const typed = evaluate(model([], 'DISABLED'), [
      { resource: 'resource-type-any:urn:app:account' },
      { resource: 'resource-type:urn:app:account' },
    ]);
    expect(typed.decisions.map((d) => d.resource?.name)).toEqual(['account', 'alice account']);
  });

  test('a thousand resources with a permission each are decided in well under a second', () => {
    const n = 1000;
    const big: AuthzModelInput = {
      server: { id: SERVER, clientId: SERVER },
      scopes: [READ, WRITE],
      resources: Array.from({ length: n }, (_, i) => ({ _id: `r${i}`, name: `r${i}`, owner: SERVER, scopes: [READ, WRITE] })),
      policies: [
        ...BASE_POLICIES,
        ...Array.from({ length: n }, (_, i) =>
          i % 2
            ? scopePermission(`p${i}`, [`r${i}`], ['scope-read'], ['is-alice'])
            : resourcePermission(`p${i}`, [`r${i}`], ['has-user-role']),
        ),
      ],
    };
    const started = Date.now();
    const out = evaluateAuthorization(big, { identity: alice });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(out.permissions).toHaveLength(n);
    expect(out.permissions[1]).toEqual({ rsid: 'r1', rsname: 'r1', scopes: ['read'] });
  });

  test('an index is reused across identities', () => {
    const ix = indexAuthzModel(m);
    expect(evaluateAuthorization(ix, { identity: alice, permissions: [ask('doc', 'read')] }).permissions).toHaveLength(1);
    expect(evaluateAuthorization(ix, { identity: { id: 'user-bob' }, permissions: [ask('doc', 'read')] }).permissions).toEqual([]);
  });
});

describe("the admin's evaluate response", () => {
  test('results per resource with statuses, allowed scopes and the voting permissions', () => {
    const m = model([
      resourcePermission('doc-perm', ['res-doc'], ['is-alice', 'is-bob'], { decisionStrategy: 'AFFIRMATIVE', description: 'docs' }),
      scopePermission('doc-delete', ['res-doc'], ['scope-delete'], ['is-bob']),
      resourcePermission('report-perm', ['res-report'], ['is-bob']),
    ]);
    const body = toEvaluationResponse(evaluate(m, [ask('doc'), ask('report'), ask('account')]));
    expect(body.status).toBe('DENY');
    expect(body.entitlements).toBe(false);
    // `account` has no permission: ENFORCING leaves it out of the results
    expect(body.results.map((r) => [r.resource.name, r.status])).toEqual([
      ['doc with scopes [read, write]', 'PERMIT'],
      ['report', 'DENY'],
    ]);
    const doc = body.results[0];
    expect(doc.resource.id).toBe('res-doc');
    expect(doc.scopes).toEqual([READ, WRITE]);
    expect(doc.allowedScopes).toEqual([READ, WRITE]);
    expect(doc.policies.map((p) => [p.policy.name, p.status, p.scopes])).toEqual([
      ['doc-delete', 'DENY', ['delete']],
      ['doc-perm', 'PERMIT', []],
    ]);
    const docPerm = doc.policies[1];
    expect(docPerm.policy).toMatchObject({
      type: 'resource',
      description: 'docs',
      decisionStrategy: 'AFFIRMATIVE',
      resources: ['doc'],
      scopes: ['read', 'write', 'delete'],
    });
    expect(docPerm.associatedPolicies.map((p) => [p.policy.name, p.status])).toEqual([
      ['is-alice', 'PERMIT'],
      ['is-bob', 'DENY'],
    ]);
    expect(body.results[1].allowedScopes).toEqual([]);
  });

  test('everything granted: PERMIT, and scope-only results are grouped as "Any Resource with Scopes"', () => {
    const m: AuthzModelInput = {
      ...model([scopePermission('orphan', [], ['scope-orphan'], ['is-alice'])]),
      scopes: [{ id: 'scope-orphan', name: 'orphan' }],
    };
    const body = toEvaluationResponse(evaluate(m, [{ scopes: ['orphan'] }]));
    expect(body.status).toBe('PERMIT');
    expect(body.results).toEqual([expect.objectContaining({ resource: { name: 'Any Resource with Scopes [orphan]' }, status: 'PERMIT' })]);
  });
});
