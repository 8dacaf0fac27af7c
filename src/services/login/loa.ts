import { nowSeconds } from '../../core/clock';
import type { AuthExecutionModel } from '../../db/models/authentication';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { REQUESTED_FLOW_LOA_NOTE } from './authorize';
import type { Condition, LoginContext } from './flow-engine';
import type { FlowDefinitions } from './flow-definitions';
import {
  acrLoaMap,
  acrValuesOf,
  enforceMinimum,
  integer,
  MINIMUM_LOA,
  NO_LOA,
  type Params,
  parseMap,
  requestedAcrValues,
} from '../tokens/acr';

/**
 * Level of authentication (step-up authentication, ADR 28 "Level of authentication"), as Keycloak's
 * AcrStore, LoAUtil, AcrUtils, ConditionalLoaAuthenticator and AcrProtocolMapper do it:
 *  - the requested level comes from the authorization request (`acr_values`, `claims` → id_token →
 *    acr, whose `essential` forces it), else the client's `default.acr.values`, raised to the client's
 *    `minimum.acr.value`; names map to levels through `acr.loa.map` (the client's, else the realm's);
 *  - `conditional-level-of-authentication` lets a level's sub-flow run while that level is requested
 *    and not already reached (in this login, or earlier in the SSO session within its `loa-max-age`);
 *  - the levels reached, with their times, live in the user session's `loa-map` note; the level each
 *    client's login reached (and what it asked for) in its `loa:<client id>` note, which the acr
 *    mapper reads for every token (refresh included).
 * The authentication session's notes carry the current level (`level-of-authn`) and the level map.
 */

export const LOA_NOTES = {
  CURRENT: 'level-of-authn',
  MAP: 'loa-map',
  /** prompt=login / max_age: levels of earlier authentications are not reused. */
  FORCED_REAUTH: 'FORCED_REAUTHENTICATION',
} as const;
const LEVEL = 'loa-condition-level';
const MAX_AGE = 'loa-max-age';
/** ConditionalLoaAuthenticator.DEFAULT_MAX_AGE: 10 hours. */
const DEFAULT_MAX_AGE = 36000;
export const LOA_CONDITION = 'conditional-level-of-authentication';

/**
 * The level the authorization request asks for (Keycloak's AuthorizationEndpoint): the lowest level
 * of its acr values; an unknown name counts as level 0, or refuses the request when essential
 * (`error`: the page "Invalid parameter: claims"). `forced`: an essential acr, which the login must meet.
 */
export function requestedLoa(
  realm: RealmModel,
  client: ClientModel,
  params: Params,
): { level: number; forced: boolean; error?: undefined } | { error: 'claims' } {
  const map = acrLoaMap(realm, client);
  let values = acrValuesOf(params, true);
  const forced = values.length > 0;
  if (forced) {
    if (enforceMinimum(values, client, map).join(' ') !== values.join(' ')) return { error: 'claims' };
  } else values = requestedAcrValues(params, client, map);
  let level: number | undefined;
  for (const acr of values) {
    let l = map[acr] ?? integer(acr);
    if (l === undefined) {
      if (forced) return { error: 'claims' };
      l = MINIMUM_LOA;
    }
    level = level === undefined ? l : Math.min(level, l);
  }
  return { level: level ?? NO_LOA, forced };
}

/** The requested level of the running login (its request is kept in the authentication session). */
const requested = (ctx: LoginContext): { level: number; forced: boolean } => {
  const r = requestedLoa(ctx.realm, ctx.client, ctx.request as Params);
  return r.error ? { level: NO_LOA, forced: false } : r;
};

export const currentLevel = (ctx: Pick<LoginContext, 'data'>): number => integer(ctx.data.notes[LOA_NOTES.CURRENT] ?? '') ?? NO_LOA;

const levelsMap = (ctx: Pick<LoginContext, 'data'>): Record<string, number> | undefined => {
  const raw = ctx.data.notes[LOA_NOTES.MAP];
  if (!raw) return undefined;
  const parsed = parseMap(raw);
  return parsed;
};

function configOf(ctx: LoginContext, exec: AuthExecutionModel): { level?: number; maxAge: number } {
  const c = exec.configId ? ctx.authConfigs?.[exec.configId] : undefined;
  const level = integer(c?.[LEVEL] ?? '');
  const maxAge = integer(c?.[MAX_AGE] ?? '');
  return { level, maxAge: maxAge === undefined || maxAge < 0 ? DEFAULT_MAX_AGE : maxAge };
}

/** LoAUtil.getLoaMaxAgesConfiguredInRealmFlow: level → loa-max-age of the flow tree's level conditions. */
export function loaMaxAges(defs: FlowDefinitions, flowId: string): Record<number, number> {
  const out: Record<number, number> = {};
  const walk = (id: string, depth: number) => {
    if (depth > 20) return;
    for (const e of defs.executions) {
      if (e.parentFlowId !== id || e.requirement === 'DISABLED') continue;
      if (e.authenticatorFlow && e.subFlowId) walk(e.subFlowId, depth + 1);
      else if (e.authenticator === LOA_CONDITION && e.configId) {
        const c = defs.configs[e.configId] ?? {};
        const level = integer(c[LEVEL] ?? '');
        const maxAge = integer(c[MAX_AGE] ?? '');
        if (level !== undefined) out[level] = maxAge === undefined || maxAge < 0 ? DEFAULT_MAX_AGE : maxAge;
      }
    }
  };
  walk(flowId, 0);
  return out;
}

/** AcrStore.isLevelAuthenticatedInPreviousAuth. */
function reachedBefore(ctx: LoginContext, level: number, maxAge: number): boolean {
  if (ctx.data.notes[LOA_NOTES.FORCED_REAUTH]) return false;
  const at = levelsMap(ctx)?.[String(level)];
  return at !== undefined && at + maxAge >= nowSeconds();
}

/** AcrStore.getHighestAuthenticatedLevelFromPreviousAuthentication: levels in order, up to the first expired one. */
function highestPrevious(ctx: LoginContext, maxAges: Record<number, number>): number {
  const map = levelsMap(ctx);
  if (!map || !Object.keys(map).length) return NO_LOA;
  let max = MINIMUM_LOA;
  const now = nowSeconds();
  for (const [level, at] of Object.entries(map)
    .map(([k, v]) => [Number(k), v] as const)
    .sort((a, b) => a[0] - b[0])) {
    if (now <= at + (maxAges[level] ?? 0)) max = level;
    else break;
  }
  return max;
}

/**
 * The cookie authenticator's part (Keycloak's CookieAuthenticator): the SSO session's levels come into
 * the login; a request for more than they still give is a step-up (the user is known, the cookie
 * alone is not enough: 'step-up'); else the SSO session is enough ('sso'), at that level.
 */
export function cookieLevel(ctx: LoginContext, sessionNotes: Record<string, string> | undefined, reauth: boolean): 'sso' | 'step-up' {
  const map = sessionNotes?.[LOA_NOTES.MAP];
  if (map) ctx.data.notes[LOA_NOTES.MAP] = map;
  if (reauth) {
    ctx.data.notes[LOA_NOTES.CURRENT] = String(NO_LOA);
    ctx.data.notes[LOA_NOTES.FORCED_REAUTH] = 'true';
    return 'step-up';
  }
  const previous = highestPrevious(ctx, ctx.loaMaxAges ?? {});
  ctx.data.notes[LOA_NOTES.CURRENT] = String(previous);
  return requested(ctx).level > previous ? 'step-up' : 'sso';
}

/** conditional-level-of-authentication (Keycloak's ConditionalLoaAuthenticator). */
export const levelOfAuthentication: Condition = {
  async matchCondition(ctx, exec) {
    const current = currentLevel(ctx);
    const { level, maxAge } = configOf(ctx, exec);
    const configured = level ?? MINIMUM_LOA;
    if (current < MINIMUM_LOA) return true;
    if (requested(ctx).level < configured) return false;
    const before = reachedBefore(ctx, configured, maxAge);
    if (before && current < configured) ctx.data.notes[LOA_NOTES.CURRENT] = String(configured);
    return !before;
  },
  async onParentFlowSuccess(ctx, exec) {
    const { level, maxAge } = configOf(ctx, exec);
    if (level === undefined) return;
    ctx.data.notes[LOA_NOTES.CURRENT] = String(level);
    if (maxAge === 0) return;
    const map = levelsMap(ctx) ?? {};
    map[String(level)] = nowSeconds();
    ctx.data.notes[LOA_NOTES.MAP] = JSON.stringify(map);
  },
};

/**
 * ConditionalLoaAuthenticator.onTopFlowSuccess: an essential acr the login did not reach stops it
 * (false); only a flow with level conditions checks.
 */
export function levelFulfilled(ctx: LoginContext): boolean {
  if (!ctx.loaMaxAges || !Object.keys(ctx.loaMaxAges).length) return true;
  const r = requested(ctx);
  return !r.forced || r.level <= currentLevel(ctx);
}

/**
 * AcrStore.setAuthFlowLevelAuthenticatedToCurrentRequest, when the flow is done (Keycloak's
 * AuthenticationProcessor.authenticationComplete, before the required actions): the flow an
 * auth-flow-enforcer chose with an `auth-flow-loa` stands for that level, so this login's level is
 * raised to it when lower (the token's `acr` says so). Only this login's level: the session's level
 * map, which later logins reuse, is not changed.
 */
export function applyFlowLevel(ctx: Pick<LoginContext, 'data'>): void {
  const level = integer(ctx.data.notes[REQUESTED_FLOW_LOA_NOTE] ?? '');
  if (level !== undefined && currentLevel(ctx) < level) ctx.data.notes[LOA_NOTES.CURRENT] = String(level);
}

/** The user-session notes a finished login leaves: the level map, and this client's level and request (`loa:<client id>`). */
export function loaSessionNotes(ctx: LoginContext, sso: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const map = ctx.data.notes[LOA_NOTES.MAP];
  if (map) out[LOA_NOTES.MAP] = map;
  const params = ctx.request as Params;
  const note: { l: number; s?: 1; claims?: string; acr?: string } = { l: currentLevel(ctx) };
  if (sso) note.s = 1;
  if (params.claims) note.claims = params.claims;
  if (params.acr_values) note.acr = params.acr_values;
  out[`loa:${ctx.client.id}`] = JSON.stringify(note);
  return out;
}
