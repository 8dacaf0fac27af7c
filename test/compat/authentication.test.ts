import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives authentication management
 * (flows, executions, configs, providers, required actions) unchanged — the sequence of its own
 * test-suite (config reference §14.2).
 */
let ts: TestServer;
let kc: KcAdminClient;
const R = 'compatauth';

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await realmAdminClient(ts, R));
});
afterAll(() => ts.close());

describe('@keycloak/keycloak-admin-client: authentication management', () => {
  test('flows: getFlows, createFlow, getFlow, updateFlow, deleteFlow', async () => {
    expect((await kc.authenticationManagement.getFlows()).map((f) => f.alias)).toEqual([
      'browser',
      'direct grant',
      'registration',
      'reset credentials',
      'clients',
      'first broker login',
      'docker auth',
    ]);
    const created = await kc.authenticationManagement.createFlow({
      alias: 'compat',
      providerId: 'basic-flow',
      description: '',
      topLevel: true,
      builtIn: false,
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const flow = await kc.authenticationManagement.getFlow({ flowId: created.id as string });
    expect(flow.alias).toBe('compat');
    const updated = await kc.authenticationManagement.updateFlow({ flowId: created.id as string }, { ...flow, description: 'updated' });
    expect(updated.description).toBe('updated');
    expect(await kc.authenticationManagement.deleteFlow({ flowId: created.id as string })).toBe('');
  });

  test('executions: copy, add execution and sub-flow, update, delete, raise, lower, config', async () => {
    const am = kc.authenticationManagement;
    await am.copyFlow({ flow: 'browser', newName: 'executionTest' });
    const added = await am.addExecutionToFlow({ flow: 'executionTest', provider: 'auth-otp-form' });
    expect(added.id).toMatch(/^[0-9a-f-]{36}$/);
    const sub = await am.addFlowToFlow({
      flow: 'executionTest',
      alias: 'subFlow',
      description: '',
      provider: 'registration-page-form',
      type: 'basic-flow',
    });
    expect(sub.id).toMatch(/^[0-9a-f-]{36}$/);
    let executions = await am.getExecutions({ flow: 'executionTest' });
    expect(executions.find((e) => e.displayName === 'subFlow')).toBeDefined();
    const otp = executions.find((e) => e.id === added.id);
    expect(otp).toMatchObject({ requirement: 'DISABLED', priority: 31 });

    const last = executions[executions.length - 1];
    const choice = (last.requirementChoices as string[])[1];
    await am.updateExecution({ flow: 'executionTest' }, { ...last, requirement: choice });
    executions = await am.getExecutions({ flow: 'executionTest' });
    expect(executions[executions.length - 1].requirement).toBe(choice);

    await am.delExecution({ id: executions[0].id as string });
    executions = await am.getExecutions({ flow: 'executionTest' });
    expect(executions.some((e) => e.providerId === 'auth-cookie')).toBe(false);

    const top = executions.filter((e) => e.level === 0);
    const lastTop = top[top.length - 1];
    await am.raisePriorityExecution({ id: lastTop.id as string });
    const afterRaise = (await am.getExecutions({ flow: 'executionTest' })).find((e) => e.id === lastTop.id);
    expect(afterRaise?.index).toBe((lastTop.index as number) - 1);
    const firstTop = top[0];
    await am.lowerPriorityExecution({ id: firstTop.id as string });
    const afterLower = (await am.getExecutions({ flow: 'executionTest' })).find((e) => e.id === firstTop.id);
    expect(afterLower?.index).toBe((firstTop.index as number) + 1);

    const redirector = (await am.getExecutions({ flow: 'executionTest' })).find((e) => e.providerId === 'identity-provider-redirector');
    const config = await am.createConfig({ id: redirector?.id as string, alias: 'test' });
    expect(config.id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await am.getConfig({ id: config.id as string });
    expect(read.alias).toBe('test');
    await am.updateConfig({ id: config.id as string, ...read, config: { defaultProvider: 'sdf' } });
    expect((await am.getConfig({ id: config.id as string })).config?.defaultProvider).toBe('sdf');
    await am.delConfig({ id: config.id as string });
    await expect(am.getConfig({ id: config.id as string })).rejects.toThrow();
    const description = await am.getConfigDescription({ providerId: redirector?.providerId as string });
    expect(description.providerId).toBe(redirector?.providerId);
  });

  test('providers', async () => {
    const am = kc.authenticationManagement;
    expect((await am.getClientAuthenticatorProviders()).length).toBe(4);
    expect((await am.getAuthenticatorProviders()).length).toBeGreaterThan(0);
    expect((await am.getFormProviders()).map((p) => p.id)).toEqual(['registration-page-form']);
    expect((await am.getFormActionProviders()).length).toBe(5);
  });

  test('required actions: get, update, delete, register, raise, lower, unregistered', async () => {
    const am = kc.authenticationManagement;
    const all = await am.getRequiredActions();
    expect(all.length).toBe(14);
    const action = await am.getRequiredActionForAlias({ alias: 'UPDATE_PROFILE' });
    expect(action.name).toBe('Update Profile');
    await am.updateRequiredAction({ alias: 'UPDATE_PROFILE' }, { ...action, enabled: false });
    expect((await am.getRequiredActionForAlias({ alias: 'UPDATE_PROFILE' })).enabled).toBe(false);
    await am.deleteRequiredAction({ alias: 'UPDATE_PROFILE' });
    expect(await am.getRequiredActionForAlias({ alias: 'UPDATE_PROFILE' })).toBeNull();
    expect(await am.getUnregisteredRequiredActions()).toEqual([{ name: 'Update Profile', providerId: 'UPDATE_PROFILE' }]);
    expect(await am.registerRequiredAction({ providerId: 'UPDATE_PROFILE', name: 'Update Profile' })).toBe('');
    await am.raiseRequiredActionPriority({ alias: 'UPDATE_PROFILE' });
    const raised = await am.getRequiredActions();
    expect(raised[raised.length - 2].alias).toBe('UPDATE_PROFILE');
    await am.lowerRequiredActionPriority({ alias: 'UPDATE_PROFILE' });
    const lowered = await am.getRequiredActions();
    expect(lowered[lowered.length - 1].alias).toBe('UPDATE_PROFILE');
  });

  // As Keycloak 26's own js/libs/keycloak-admin-client/test/authenticationManagement.spec.ts expects.
  test('required action config: UPDATE_PASSWORD reads max_auth_age 300 before any write, 301 once stored, 300 after the reset', async () => {
    const am = kc.authenticationManagement;
    expect((await am.getRequiredActionConfig({ alias: 'UPDATE_PASSWORD' })).config?.max_auth_age).toBe(300);
    await am.updateRequiredActionConfig({ alias: 'UPDATE_PASSWORD' }, { config: { max_auth_age: '301' } });
    expect((await am.getRequiredActionConfig({ alias: 'UPDATE_PASSWORD' })).config?.max_auth_age).toBe(301);
    await am.removeRequiredActionConfig({ alias: 'UPDATE_PASSWORD' });
    expect((await am.getRequiredActionConfig({ alias: 'UPDATE_PASSWORD' })).config?.max_auth_age).toBe(300);
  });
});
