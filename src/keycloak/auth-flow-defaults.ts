import { randomUUID } from 'node:crypto';
import type { Requirement } from './authenticator-providers';

/**
 * Keycloak's built-in authentication flows of a new realm (config reference §9.8, 26.3): every
 * top-level flow with its sub-flows, executions and authenticator configs, as rows ready for
 * bulkCreate. The Organization sub-flows are not created in the master realm.
 */
interface ExecDef {
  req: Requirement;
  prio: number;
  auth?: string;
  flow?: FlowDef;
  config?: { alias: string; config: Record<string, string> };
}
interface FlowDef {
  alias: string;
  description: string | null;
  providerId?: string;
  nonMaster?: boolean;
  executions: ExecDef[];
}

const x = (auth: string, req: Requirement, prio: number, config?: ExecDef['config']): ExecDef => ({ auth, req, prio, config });
const sub = (flow: FlowDef, req: Requirement, prio: number, auth?: string): ExecDef => ({ flow, req, prio, auth });

const conditional2fa = (alias: string): FlowDef => ({
  alias,
  description: 'Flow to determine if any 2FA is required for the authentication',
  executions: [
    x('conditional-user-configured', 'REQUIRED', 10),
    x('auth-otp-form', 'ALTERNATIVE', 20),
    x('webauthn-authenticator', 'DISABLED', 30),
    x('auth-recovery-authn-code-form', 'DISABLED', 40),
  ],
});

const FLOWS: FlowDef[] = [
  {
    alias: 'browser',
    description: 'Browser based authentication',
    executions: [
      x('auth-cookie', 'ALTERNATIVE', 10),
      x('auth-spnego', 'DISABLED', 20),
      x('identity-provider-redirector', 'ALTERNATIVE', 25),
      {
        ...sub(
          {
            alias: 'Organization',
            description: null,
            executions: [
              sub(
                {
                  alias: 'Browser - Conditional Organization',
                  description: 'Flow to determine if the organization identity-first login is to be used',
                  executions: [x('conditional-user-configured', 'REQUIRED', 10), x('organization', 'ALTERNATIVE', 20)],
                },
                'CONDITIONAL',
                10,
              ),
            ],
          },
          'ALTERNATIVE',
          26,
        ),
        nonMaster: true,
      } as ExecDef & { nonMaster: boolean },
      sub(
        {
          alias: 'forms',
          description: 'Username, password, otp and other auth forms.',
          executions: [
            x('auth-username-password-form', 'REQUIRED', 10),
            sub(conditional2fa('Browser - Conditional 2FA'), 'CONDITIONAL', 20),
          ],
        },
        'ALTERNATIVE',
        30,
      ),
    ],
  },
  {
    alias: 'direct grant',
    description: 'OpenID Connect Resource Owner Grant',
    executions: [
      x('direct-grant-validate-username', 'REQUIRED', 10),
      x('direct-grant-validate-password', 'REQUIRED', 20),
      sub(
        {
          alias: 'Direct Grant - Conditional OTP',
          description: 'Flow to determine if the OTP is required for the authentication',
          executions: [x('conditional-user-configured', 'REQUIRED', 10), x('direct-grant-validate-otp', 'REQUIRED', 20)],
        },
        'CONDITIONAL',
        30,
      ),
    ],
  },
  {
    alias: 'registration',
    description: 'Registration flow',
    executions: [
      sub(
        {
          alias: 'registration form',
          description: 'Registration form',
          providerId: 'form-flow',
          executions: [
            x('registration-user-creation', 'REQUIRED', 20),
            x('registration-password-action', 'REQUIRED', 50),
            x('registration-recaptcha-action', 'DISABLED', 60),
            x('registration-terms-and-conditions', 'DISABLED', 70),
          ],
        },
        'REQUIRED',
        10,
        'registration-page-form',
      ),
    ],
  },
  {
    alias: 'reset credentials',
    description: 'Reset credentials for a user if they forgot their password or something',
    executions: [
      x('reset-credentials-choose-user', 'REQUIRED', 10),
      x('reset-credential-email', 'REQUIRED', 20),
      x('reset-password', 'REQUIRED', 30),
      sub(
        {
          alias: 'Reset - Conditional OTP',
          description: 'Flow to determine if the OTP should be reset or not. Set to REQUIRED to force.',
          executions: [x('conditional-user-configured', 'REQUIRED', 10), x('reset-otp', 'REQUIRED', 20)],
        },
        'CONDITIONAL',
        40,
      ),
    ],
  },
  {
    alias: 'clients',
    description: 'Base authentication for clients',
    providerId: 'client-flow',
    executions: [
      x('client-secret', 'ALTERNATIVE', 10),
      x('client-jwt', 'ALTERNATIVE', 20),
      x('client-secret-jwt', 'ALTERNATIVE', 30),
      x('client-x509', 'ALTERNATIVE', 40),
    ],
  },
  {
    alias: 'first broker login',
    description: 'Actions taken after first broker login with identity provider account, which is not yet linked to any Keycloak account',
    executions: [
      x('idp-review-profile', 'REQUIRED', 10, { alias: 'review profile config', config: { 'update.profile.on.first.login': 'missing' } }),
      sub(
        {
          alias: 'User creation or linking',
          description: 'Flow for the existing/non-existing user alternatives',
          executions: [
            x('idp-create-user-if-unique', 'ALTERNATIVE', 10, {
              alias: 'create unique user config',
              config: { 'require.password.update.after.registration': 'false' },
            }),
            sub(
              {
                alias: 'Handle Existing Account',
                description: 'Handle what to do if there is existing account with same email/username like authenticated identity provider',
                executions: [
                  x('idp-confirm-link', 'REQUIRED', 10),
                  sub(
                    {
                      alias: 'Account verification options',
                      description: 'Method with which to verity the existing account',
                      executions: [
                        x('idp-email-verification', 'ALTERNATIVE', 10),
                        sub(
                          {
                            alias: 'Verify Existing Account by Re-authentication',
                            description: 'Reauthentication of existing account',
                            executions: [
                              x('idp-username-password-form', 'REQUIRED', 10),
                              sub(conditional2fa('First broker login - Conditional 2FA'), 'CONDITIONAL', 20),
                            ],
                          },
                          'ALTERNATIVE',
                          20,
                        ),
                      ],
                    },
                    'REQUIRED',
                    20,
                  ),
                ],
              },
              'ALTERNATIVE',
              20,
            ),
          ],
        },
        'REQUIRED',
        20,
      ),
      {
        ...sub(
          {
            alias: 'First Broker Login - Conditional Organization',
            description: 'Flow to determine if the authenticator that adds organization members is to be used',
            executions: [x('conditional-user-configured', 'REQUIRED', 10), x('idp-add-organization-member', 'REQUIRED', 20)],
          },
          'CONDITIONAL',
          50,
        ),
        nonMaster: true,
      } as ExecDef & { nonMaster: boolean },
    ],
  },
  {
    alias: 'saml ecp',
    description: 'SAML ECP Profile Authentication Flow',
    executions: [x('http-basic-authenticator', 'REQUIRED', 10)],
  },
  {
    alias: 'docker auth',
    description: 'Used by Docker clients to authenticate against the IDP',
    executions: [x('docker-http-basic-authenticator', 'REQUIRED', 10)],
  },
];

/** Aliases of the built-in top-level flows, in creation order. */
export const BUILT_IN_FLOW_ALIASES = FLOWS.map((f) => f.alias);

/** The realm binding fields and the built-in flow each points at in a new realm. */
export const FLOW_BINDINGS = {
  browserFlow: 'browser',
  registrationFlow: 'registration',
  directGrantFlow: 'direct grant',
  resetCredentialsFlow: 'reset credentials',
  clientAuthenticationFlow: 'clients',
  dockerAuthenticationFlow: 'docker auth',
  firstBrokerLoginFlow: 'first broker login',
} satisfies Record<string, string>;

let lastOrd = 0;
/** A creation-order stamp for a new flow: increasing within the process, roughly time-ordered across nodes. */
export function nextOrd(): number {
  lastOrd = Math.max(lastOrd + 1, Date.now() * 1000);
  return lastOrd;
}

export interface FlowRows {
  flows: Array<Record<string, unknown>>;
  executions: Array<Record<string, unknown>>;
  configs: Array<Record<string, unknown>>;
}

/** Every alias (flows and configs) a built-in top-level flow would create. */
export function builtInAliases(topAlias: string, isMaster: boolean): { flows: string[]; configs: string[] } {
  const rows = builtInFlowRows('', isMaster, [topAlias]);
  return { flows: rows.flows.map((f) => f.alias as string), configs: rows.configs.map((c) => c.alias as string) };
}

/** Rows of the built-in flows (all, or only the named top-level ones) for a realm. */
export function builtInFlowRows(realmId: string, isMaster: boolean, only?: string[]): FlowRows {
  const out: FlowRows = { flows: [], executions: [], configs: [] };
  const addFlow = (def: FlowDef, topLevel: boolean): string => {
    const id = randomUUID();
    const providerId = def.providerId ?? 'basic-flow';
    out.flows.push({ id, realmId, alias: def.alias, description: def.description, providerId, topLevel, builtIn: true, ord: nextOrd() });
    for (const e of def.executions) {
      if ((e as { nonMaster?: boolean }).nonMaster && isMaster) continue;
      let configId: string | null = null;
      if (e.config) {
        configId = randomUUID();
        out.configs.push({ id: configId, realmId, alias: e.config.alias, config: e.config.config });
      }
      const subFlowId = e.flow ? addFlow(e.flow, false) : null;
      out.executions.push({
        id: randomUUID(),
        realmId,
        parentFlowId: id,
        authenticator: e.auth ?? null,
        authenticatorFlow: Boolean(e.flow),
        subFlowId,
        requirement: e.req,
        priority: e.prio,
        configId,
      });
    }
    return id;
  };
  for (const def of FLOWS) if (!only || only.includes(def.alias)) addFlow(def, true);
  return out;
}
