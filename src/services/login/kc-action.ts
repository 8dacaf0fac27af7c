import { nowSeconds } from '../../core/clock';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { AuthRequest } from './authorize';
import { realmRequiredActions } from './flow-definitions';
import type { LoginContext } from './flow-engine';
import { authTimeOf, ssoFromCookie } from './sso';

/**
 * Application-initiated actions (Keycloak's `kc_action` parameter of the authorization endpoint): after
 * the login (a form or the SSO cookie) and the user's own pending actions, the one enabled required
 * action the application asked for runs; the redirect back to the client then carries `kc_action`
 * (the alias) and `kc_action_status` (`success`, `cancelled` or `error`). `kc_action` may carry a
 * parameter after a colon (`delete_credential:<credential id>`). Actions that change a credential
 * ask for a fresh sign-in when the SSO session's authentication is older than their `max_auth_age`.
 */

/** Notes of the authentication session. */
export const KC_NOTES = {
  /** The status once the action ran (or could not). */
  STATUS: 'KC_ACTION_STATUS',
} as const;

export type KcActionStatus = 'success' | 'cancelled' | 'error';

/** `ALIAS` or `ALIAS:parameter`. */
export function parseKcAction(value: string | undefined): { alias: string; parameter?: string } | undefined {
  if (!value) return undefined;
  const i = value.indexOf(':');
  if (i < 0) return { alias: value };
  return { alias: value.slice(0, i), parameter: value.slice(i + 1) || undefined };
}

/** The application-initiated action of this login, whether or not it ran already. */
export const kcActionOf = (ctx: Pick<LoginContext, 'request'>) => parseKcAction(ctx.request.kc_action);

/** The application-initiated action still to run (none once it has a status). */
export function pendingKcAction(ctx: LoginContext) {
  if (ctx.data.notes[KC_NOTES.STATUS]) return undefined;
  return kcActionOf(ctx);
}

/** Records the outcome of the application-initiated action `alias` (no effect for another action). */
export function setKcActionStatus(ctx: LoginContext, alias: string, status: KcActionStatus): void {
  const kc = kcActionOf(ctx);
  if (kc && kc.alias === alias && !ctx.data.notes[KC_NOTES.STATUS]) ctx.data.notes[KC_NOTES.STATUS] = status;
}

/** What the redirect to the client adds: `kc_action` and `kc_action_status`, once the action has a status. */
export function kcActionResponse(ctx: Pick<LoginContext, 'request' | 'data'>): { kc_action?: string; kc_action_status?: string } {
  const status = ctx.data.notes[KC_NOTES.STATUS];
  const kc = kcActionOf(ctx);
  if (!status || !kc) return {};
  return { kc_action: kc.alias, kc_action_status: status };
}

/** The actions that change credentials, so that a stale authentication must be renewed first (Keycloak's max_auth_age). */
const CREDENTIAL_ACTIONS = new Set(['UPDATE_PASSWORD', 'CONFIGURE_TOTP', 'delete_credential']);
const DEFAULT_MAX_AUTH_AGE = 300;

/** The realm password policy's maxAuthAge(N), if set. */
function policyMaxAuthAge(realm: RealmModel): number | undefined {
  const policy = typeof realm.settings.passwordPolicy === 'string' ? realm.settings.passwordPolicy : '';
  const m = /(?:^|\s)maxAuthAge\((\d+)\)/.exec(policy);
  return m ? Number(m[1]) : undefined;
}

/**
 * How old (seconds) an SSO authentication may be for the application-initiated action `alias`: the
 * action's `max_auth_age` config, else for UPDATE_PASSWORD the password policy's maxAuthAge, else
 * 300; undefined for actions that need no recent sign-in.
 */
export async function kcActionMaxAuthAge(db: Db, realm: RealmModel, alias: string): Promise<number | undefined> {
  const def = (await realmRequiredActions(db, realm)).find((d) => d.alias === alias);
  if (!def || !CREDENTIAL_ACTIONS.has(def.providerId)) return undefined;
  const configured = Number(def.config?.max_auth_age);
  if (def.config?.max_auth_age !== undefined && Number.isInteger(configured) && configured >= 0) return configured;
  if (def.providerId === 'UPDATE_PASSWORD') return policyMaxAuthAge(realm) ?? DEFAULT_MAX_AUTH_AGE;
  return DEFAULT_MAX_AUTH_AGE;
}

/**
 * Before the login runs: an action that needs a recent sign-in lowers the request's max_age to its
 * max_auth_age, so the SSO cookie of an older authentication no longer suffices and the login form
 * asks again (the SSO user's name filled in).
 */
export async function requireRecentAuthentication(
  db: Db,
  realm: RealmModel,
  request: AuthRequest,
  identityCookie: string | undefined,
): Promise<void> {
  const kc = parseKcAction(request.kc_action);
  if (!kc) return;
  const maxAge = await kcActionMaxAuthAge(db, realm, kc.alias);
  if (maxAge === undefined) return;
  if (request.max_age === undefined || Number(request.max_age) > maxAge) request.max_age = String(maxAge);
  if (request.login_hint) return;
  const sso = await ssoFromCookie(db, realm, identityCookie);
  if (sso && nowSeconds() - authTimeOf(sso.session) > maxAge) request.login_hint = sso.user.username;
}
