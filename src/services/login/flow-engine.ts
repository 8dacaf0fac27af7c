import type { Db } from '../../db';
import type { AuthExecutionModel } from '../../db/models/authentication';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { AuthSessionModel } from '../../db/models/login';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import type { TokenEvent } from '../tokens/token-events';
import type { AuthSessionData } from './auth-sessions';
import type { AuthRequest, Message } from './authorize';

/**
 * The flow engine: runs a realm's authentication flow as configured through the admin API
 * (Keycloak's DefaultAuthenticationFlow). In a flow, condition executions decide whether a
 * CONDITIONAL sub-flow runs; REQUIRED and CONDITIONAL executions must all succeed, in priority order;
 * ALTERNATIVE ones count only when the flow has no REQUIRED one, and the first that succeeds is
 * enough; DISABLED ones never run. Sub-flows nest. The state between requests (each execution's
 * status, the user found so far, notes) is kept in the authentication session's row, so the next
 * step may be served by any node. Authenticators are looked up by provider id in a registry
 * (authenticators.ts), so new ones plug in without touching the engine.
 */

/** One attribute of the update-profile page, as the user may see and edit it. */
export interface ProfileField {
  name: string;
  /** The label: a message key (firstName ...) or a display name as configured. */
  label: Message;
  value: string;
  readOnly: boolean;
  required: boolean;
  /** The allowed values (an `options` validator): a select. */
  options?: string[];
  inputType?: string;
  /** A multi-valued attribute: one input per value (`values`, blanks kept), or a multiselect of its options. */
  multivalued?: boolean;
  values?: string[];
  error?: Message;
}

/** What the login shows: a form of an authenticator, an error page, or an information page. */
export type Page =
  | {
      page: 'login';
      variant: 'username-password' | 'username' | 'password';
      executionId: string;
      username?: string;
      message?: Message;
      status?: number;
      /** The page offers this organization's public providers instead of the realm's, and no registration link (organization-login.ts). */
      organizationId?: string;
    }
  | { page: 'otp'; executionId: string; message?: Message; status?: number }
  /** reset-otp's "Remove one": which OTP device goes. */
  | { page: 'otp-reset'; executionId: string; credentials: Array<{ id: string; label: string }>; message?: Message; status?: number }
  | { page: 'reset-password'; executionId: string; username?: string; message?: Message; status?: number }
  | { page: 'info'; status: number; title: Message; message: Message; backUrl?: string }
  | { page: 'error'; status: number; message: Message }
  /** The first broker login's review of the brokered profile (idp-review-profile). */
  | {
      page: 'update-profile';
      executionId: string;
      status?: number;
      message?: Message;
      verify: boolean;
      fields: ProfileField[];
      cancelable?: boolean;
    }
  /** The registration form (registration-page-form): the profile's fields, the form actions' parts, their errors by field. */
  | {
      page: 'register';
      executionId: string;
      fields: ProfileField[];
      password: boolean;
      terms: boolean;
      errors: Record<string, Message>;
      /** reCAPTCHA's widget (registration-recaptcha-action) and a message for the whole form. */
      recaptcha?: { siteKey: string; action: string; v3: boolean; scriptUrl: string };
      message?: Message;
      status?: number;
    }
  /** An account with the brokered e-mail or username exists (idp-confirm-link). */
  | { page: 'confirm-link'; executionId: string; message: Message; status?: number }
  /** The organizations a member of several picks from (organization, Keycloak's select-organization.ftl). */
  | { page: 'select-organization'; executionId: string; organizations: Array<{ alias: string; name: string }>; status?: number }
  /** A redirect to an identity provider (identity-provider-redirector, organization, kc_idp_hint). */
  | { page: 'redirect'; location: string };

/**
 * The answer of a flow that runs without a browser (the password grant's direct grant flow): an
 * OAuth error body and its status, as Keycloak's direct grant authenticators build them.
 */
export interface OAuthReply {
  status: number;
  error: string;
  description?: string;
}

/** The result of one authenticator call. */
export type Outcome =
  | { kind: 'success' }
  | { kind: 'attempted' }
  | { kind: 'challenge'; page: Page }
  /** The flow starts again from its first execution (idp-confirm-link's "review profile"). */
  | { kind: 'reset' }
  /**
   * A failure; with a page, the form is shown again (a wrong password), without one, the login stops.
   * `reply` is the answer of a flow run without a browser (the direct grant).
   */
  | { kind: 'failure'; error: string; page?: Page; reply?: OAuthReply };

/** Everything an authenticator may read or change while one request runs the flow. */
export interface LoginContext {
  db: Db;
  realm: RealmModel;
  client: ClientModel;
  authSession: AuthSessionModel;
  data: AuthSessionData;
  request: AuthRequest;
  /** The user identified so far (kept in the authentication session between requests). */
  user: UserModel | null;
  /** The SSO session a cookie brought, when the cookie authenticator accepted it. */
  userSession?: UserSessionModel;
  /** The browser's KEYCLOAK_IDENTITY cookie. */
  identityCookie?: string;
  /** The LOGIN event of this request (LOGIN_ERROR with an error code on failure). */
  ev: TokenEvent;
  ipAddress?: string;
  /** The form posted to the current execution (actions only). */
  form?: Record<string, string>;
  /** Every value of each posted field, in order (`form` has the first): a multi-valued profile attribute's inputs. */
  formValues?: Record<string, string[]>;
  /** The server's base URL as the request reached it (links in e-mails). */
  baseUrl?: string;
  /** Authenticator configs by id, when the run has them at hand (the realm's flow definitions); else read by id. */
  authConfigs?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The browser flow's levels of authentication → their loa-max-age (loa.ts); absent in other flows. */
  loaMaxAges?: Readonly<Record<number, number>>;
}

export interface Authenticator {
  /** The login must know its user before this authenticator runs. */
  requiresUser?: boolean;
  /** Whether the user has what this authenticator checks (a password, an OTP device ...). */
  configuredFor?(ctx: LoginContext, user: UserModel): Promise<boolean>;
  authenticate(ctx: LoginContext, exec: AuthExecutionModel): Promise<Outcome>;
  /** The form's POST. */
  action?(ctx: LoginContext, exec: AuthExecutionModel): Promise<Outcome>;
}

export interface Condition {
  matchCondition(ctx: LoginContext, exec: AuthExecutionModel, siblings: AuthExecutionModel[], registry: Registry): Promise<boolean>;
  /** Called when the flow holding this condition succeeded (Keycloak's AuthenticationFlowCallback.onParentFlowSuccess). */
  onParentFlowSuccess?(ctx: LoginContext, exec: AuthExecutionModel): Promise<void>;
}

/**
 * A form authenticator (Keycloak's FormAuthenticator, run by its FormAuthenticationFlow): the
 * execution of a `form-flow` sub-flow whose form actions (the sub-flow's enabled executions, in
 * priority order) it renders and runs itself (registration.ts: registration-page-form).
 */
export interface FormAuthenticator {
  authenticate(ctx: LoginContext, exec: AuthExecutionModel, actions: AuthExecutionModel[]): Promise<Outcome>;
  action(ctx: LoginContext, exec: AuthExecutionModel, actions: AuthExecutionModel[]): Promise<Outcome>;
}

/** The registry: provider id → authenticator or condition (and form authenticators, for a registry that has forms). */
export interface Registry {
  authenticators: Record<string, Authenticator>;
  conditions: Record<string, Condition>;
  forms?: Record<string, FormAuthenticator>;
}

/** A failure that stops the flow (or, in an ALTERNATIVE, moves on to the next alternative). */
export class FlowError extends Error {
  constructor(
    readonly error: string,
    readonly page?: Page,
    readonly reply?: OAuthReply,
  ) {
    super(error);
  }
}

export type FlowResult = { kind: 'challenge'; page: Page } | { kind: 'done'; successful: boolean };

const PROCESSED = new Set(['SUCCESS', 'SKIPPED', 'ATTEMPTED']);

/** One run of a flow tree: the executions of every flow of the realm, read once. */
export class FlowRun {
  private readonly byParent = new Map<string, AuthExecutionModel[]>();

  private constructor(
    private readonly ctx: LoginContext,
    private readonly registry: Registry,
    executions: AuthExecutionModel[],
  ) {
    for (const e of executions) this.byParent.set(e.parentFlowId, [...(this.byParent.get(e.parentFlowId) ?? []), e]);
    for (const list of this.byParent.values()) list.sort((a, b) => a.priority - b.priority);
  }

  /** A run over the realm's executions (its flow definitions, kept per node under the realm's cache version: flow-definitions.ts); they are read, never changed. */
  static over(ctx: LoginContext, registry: Registry, executions: readonly AuthExecutionModel[]): FlowRun {
    return new FlowRun(ctx, registry, [...executions]);
  }

  private status(e: AuthExecutionModel): string | undefined {
    return this.ctx.data.statuses[e.id];
  }

  private setStatus(e: AuthExecutionModel, s: string): void {
    this.ctx.data.statuses[e.id] = s;
  }

  /** The execution of the flow tree under `flowId` with this id (a form's `execution` parameter). */
  find(flowId: string, id: string): AuthExecutionModel | undefined {
    for (const e of this.byParent.get(flowId) ?? []) {
      if (e.id === id) return e;
      if (e.authenticatorFlow && e.subFlowId) {
        const inner = this.find(e.subFlowId, id);
        if (inner) return inner;
      }
    }
    return undefined;
  }

  private isCondition(e: AuthExecutionModel): boolean {
    return !e.authenticatorFlow && Boolean(e.authenticator && this.registry.conditions[e.authenticator]);
  }

  /** Runs the flow from its first execution, skipping what is already done. */
  async process(flowId: string): Promise<FlowResult> {
    const result = await this.processFlow(flowId);
    if (result.kind === 'done' && result.successful) {
      for (const c of this.byParent.get(flowId) ?? []) {
        const hook = c.requirement !== 'DISABLED' && this.isCondition(c) ? this.registry.conditions[c.authenticator as string] : undefined;
        if (hook?.onParentFlowSuccess) await hook.onParentFlowSuccess(this.ctx, c);
      }
    }
    return result;
  }

  private async processFlow(flowId: string): Promise<FlowResult> {
    const all = (this.byParent.get(flowId) ?? []).filter((e) => e.requirement !== 'DISABLED' && !this.isCondition(e));
    const required = all.filter((e) => e.requirement === 'REQUIRED' || e.requirement === 'CONDITIONAL');
    // As Keycloak: a flow with REQUIRED executions ignores its ALTERNATIVE ones.
    const alternatives = required.length ? [] : all.filter((e) => e.requirement === 'ALTERNATIVE');
    let ran = 0;
    for (const e of required) {
      // Conditions are asked only when the sub-flow's turn comes (the user may be known only by then).
      if (e.requirement === 'CONDITIONAL' && (await this.conditionalSkipped(e))) continue;
      ran++;
      const page = await this.processOne(e);
      if (page) return { kind: 'challenge', page };
      if (this.status(e) !== 'SUCCESS') return { kind: 'done', successful: false };
    }
    if (ran) return { kind: 'done', successful: true };
    if (alternatives.some((e) => this.status(e) === 'SUCCESS')) return { kind: 'done', successful: true };
    let firstError: FlowError | undefined;
    for (const e of alternatives) {
      try {
        const page = await this.processOne(e);
        if (page) return { kind: 'challenge', page };
        if (this.status(e) === 'SUCCESS') return { kind: 'done', successful: true };
      } catch (err) {
        if (!(err instanceof FlowError)) throw err;
        firstError ??= err;
        this.setStatus(e, 'SKIPPED');
      }
    }
    if (firstError) throw firstError;
    return { kind: 'done', successful: false };
  }

  /** True when a CONDITIONAL sub-flow's conditions do not all hold (it then counts as absent). */
  private async conditionalSkipped(e: AuthExecutionModel): Promise<boolean> {
    if (!e.authenticatorFlow || !e.subFlowId) return true;
    const siblings = this.byParent.get(e.subFlowId) ?? [];
    for (const c of siblings.filter((x) => x.requirement !== 'DISABLED' && this.isCondition(x))) {
      let holds: boolean;
      const known = this.status(c);
      if (known === 'EVALUATED_TRUE' || known === 'EVALUATED_FALSE') holds = known === 'EVALUATED_TRUE';
      else {
        holds = await this.registry.conditions[c.authenticator as string].matchCondition(this.ctx, c, siblings, this.registry);
        this.setStatus(c, holds ? 'EVALUATED_TRUE' : 'EVALUATED_FALSE');
      }
      if (!holds) return true;
    }
    return false;
  }

  /** Runs one execution (an authenticator or a sub-flow); returns the page to show, if any. */
  private async processOne(e: AuthExecutionModel): Promise<Page | undefined> {
    if (PROCESSED.has(this.status(e) ?? '')) return undefined;
    const form = this.formOf(e);
    if (form) return this.apply(e, await form.authenticate(this.ctx, e, this.formActions(e)));
    if (e.authenticatorFlow) {
      const result = await this.process(e.subFlowId ?? '');
      if (result.kind === 'challenge') {
        this.setStatus(e, 'CHALLENGED');
        return result.page;
      }
      this.setStatus(e, result.successful ? 'SUCCESS' : 'FAILED');
      return undefined;
    }
    const provider = e.authenticator ?? '';
    const impl = this.registry.authenticators[provider];
    if (!impl) {
      this.setStatus(e, 'FAILED');
      throw new FlowError('not_implemented', {
        page: 'error',
        status: 501,
        message: { key: 'unsupportedStepMessage', params: [provider] },
      });
    }
    const user = this.ctx.user;
    if (impl.requiresUser && !user) {
      throw new FlowError('user_not_found', { page: 'error', status: 400, message: { key: 'invalidUserMessage' } });
    }
    if (user && impl.configuredFor && !(await impl.configuredFor(this.ctx, user))) {
      if (e.requirement === 'REQUIRED') {
        throw new FlowError('credential_setup_required', {
          page: 'error',
          status: 501,
          message: { key: 'unsupportedStepMessage', params: [provider] },
        });
      }
      this.setStatus(e, 'SKIPPED');
      return undefined;
    }
    return this.apply(e, await impl.authenticate(this.ctx, e));
  }

  private apply(e: AuthExecutionModel, outcome: Outcome): Page | undefined {
    switch (outcome.kind) {
      case 'success':
        this.setStatus(e, 'SUCCESS');
        return undefined;
      case 'attempted':
        this.setStatus(e, 'ATTEMPTED');
        return undefined;
      case 'reset':
        for (const k of Object.keys(this.ctx.data.statuses)) delete this.ctx.data.statuses[k];
        return undefined;
      case 'challenge':
        this.setStatus(e, 'CHALLENGED');
        return outcome.page;
      case 'failure':
        // A failure with a page (the form again, with its message) waits for the next attempt.
        if (outcome.page && 'executionId' in outcome.page) {
          this.setStatus(e, 'CHALLENGED');
          return outcome.page;
        }
        this.setStatus(e, 'FAILED');
        throw new FlowError(outcome.error, outcome.page, outcome.reply);
    }
  }

  /**
   * A form's POST to `executionId`: the authenticator's action, then the flow from the top. A POST to
   * an execution that is not waiting for one (a stale tab, a replayed form) just runs the flow, which
   * shows the page the login is really at.
   */
  async action(flowId: string, executionId: string): Promise<FlowResult> {
    const e = this.find(flowId, executionId);
    const form = e && this.formOf(e);
    if (e && form && this.status(e) === 'CHALLENGED') {
      const page = this.apply(e, await form.action(this.ctx, e, this.formActions(e)));
      if (page) return { kind: 'challenge', page };
      return this.process(flowId);
    }
    const impl = e?.authenticator ? this.registry.authenticators[e.authenticator] : undefined;
    if (e && impl?.action && this.status(e) === 'CHALLENGED') {
      const page = this.apply(e, await impl.action(this.ctx, e));
      if (page) return { kind: 'challenge', page };
      this.clearChallenged(flowId);
    }
    return this.process(flowId);
  }

  /** The form authenticator of a sub-flow execution (registration-page-form), when the registry has one. */
  private formOf(e: AuthExecutionModel): FormAuthenticator | undefined {
    return e.authenticatorFlow && e.authenticator ? this.registry.forms?.[e.authenticator] : undefined;
  }

  /** A form's actions: the enabled executions of its sub-flow, in priority order. */
  private formActions(e: AuthExecutionModel): AuthExecutionModel[] {
    return (this.byParent.get(e.subFlowId ?? '') ?? []).filter((a) => a.requirement !== 'DISABLED');
  }

  /** Sub-flows marked CHALLENGED run again after an action, so they see its outcome. */
  private clearChallenged(flowId: string): void {
    for (const e of this.byParent.get(flowId) ?? []) {
      if (e.authenticatorFlow && e.subFlowId) {
        if (this.status(e) === 'CHALLENGED') delete this.ctx.data.statuses[e.id];
        this.clearChallenged(e.subFlowId);
      }
    }
  }
}
