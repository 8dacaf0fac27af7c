import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { isUniqueViolation } from '../../core/db-errors';
import type { Db } from '../../db';
import type { ClientModel, ClientScopeModel } from '../../db/models/client';
import type { UserModel } from '../../db/models/user';
import { effectiveClientScopes } from '../tokens/token-claims';
import type { ActionPage } from './action-types';
import type { LoginContext } from './flow-engine';

/**
 * The consent screen (Keycloak's OAUTH_GRANT step, AuthenticationManager.actionRequired and
 * LoginActionsService.processConsent): a client with `consentRequired` asks the user, after the
 * required actions, to grant the requested client scopes that are shown on the consent screen
 * (`display.on.consent.screen`, absent: shown) and not granted yet. "Yes" stores them in the user's
 * consent (`user_consent` / `user_consent_client_scope`, the rows `GET /users/{id}/consents` lists);
 * "No" sends `access_denied` to the client. `prompt=consent` ignores the stored consent.
 */

/** The execution name of the consent step (Keycloak's `AuthenticatedClientSessionModel.Action.OAUTH_GRANT`). */
export const OAUTH_GRANT = 'OAUTH_GRANT';

/** One line of the consent page: the scope's consent text (a `${key}` message key or plain text). */
export interface ConsentLine {
  scope: string;
  text: string;
}

/** What the consent step decided: nothing to ask (with the event's `consent` detail), or the scopes to ask for. */
export type ConsentDecision =
  | { ask: false; detail: 'no_consent_required' | 'persistent_consent' }
  | { ask: true; scopes: ClientScopeModel[] };

const shownOnScreen = (s: ClientScopeModel) => s.attributes?.['display.on.consent.screen'] !== 'false';

/** The ids of the client scopes the user granted to the client (empty set when none is stored). */
async function grantedScopeIds(db: Db, user: UserModel, client: ClientModel): Promise<Set<string> | undefined> {
  const consent = await db.models.UserConsent.findOne({ where: { userId: user.id, clientId: client.id }, attributes: ['id'] });
  if (!consent) return undefined;
  const links = await db.models.UserConsentClientScope.findAll({ where: { userConsentId: consent.id }, attributes: ['scopeId'] });
  return new Set(links.map((l) => l.scopeId));
}

/** The client scopes this login requests: the client's default scopes and the requested optional ones. */
const requestedScopes = (ctx: LoginContext) => effectiveClientScopes(ctx.db, ctx.client, ctx.request.scope ?? '');

/** Whether the login must show the consent page, and for which scopes. */
export async function consentDecision(ctx: LoginContext): Promise<ConsentDecision> {
  if (ctx.client.settings.consentRequired !== true) return { ask: false, detail: 'no_consent_required' };
  const user = ctx.user as UserModel;
  const prompt = (ctx.request.prompt ?? '').split(' ');
  const granted = prompt.includes('consent') ? undefined : await grantedScopeIds(ctx.db, user, ctx.client);
  const scopes = (await requestedScopes(ctx)).filter((s) => shownOnScreen(s) && !granted?.has(s.id));
  if (scopes.length) return { ask: true, scopes };
  return { ask: false, detail: granted ? 'persistent_consent' : 'no_consent_required' };
}

/** The consent page's lines: each scope's `consent.screen.text`, else its name. */
export function consentLines(scopes: ClientScopeModel[]): ConsentLine[] {
  return scopes.map((s) => ({ scope: s.name, text: s.attributes?.['consent.screen.text'] || s.name }));
}

/**
 * "Yes": adds the scopes the page showed to the user's consent to the client, in one transaction (a
 * consent created at the same moment by another request is found again through the unique index).
 */
export async function grantConsent(db: Db, user: UserModel, client: ClientModel, scopes: ClientScopeModel[]): Promise<void> {
  const now = Date.now();
  const upsert = () =>
    db.transaction(async () => {
      let consent = await db.models.UserConsent.findOne({ where: { userId: user.id, clientId: client.id } });
      if (!consent) {
        consent = await db.models.UserConsent.create({
          id: randomUUID(),
          userId: user.id,
          clientId: client.id,
          createdDate: now,
          lastUpdatedDate: now,
        });
      } else await db.models.UserConsent.update({ lastUpdatedDate: now }, { where: { id: consent.id } });
      const have = new Set(
        (
          await db.models.UserConsentClientScope.findAll({
            where: { userConsentId: consent.id, scopeId: { [Op.in]: scopes.map((s) => s.id) } },
            attributes: ['scopeId'],
          })
        ).map((l) => l.scopeId),
      );
      const add = scopes.filter((s) => !have.has(s.id)).map((s) => ({ userConsentId: consent.id, scopeId: s.id }));
      if (add.length) await db.models.UserConsentClientScope.bulkCreate(add, { ignoreDuplicates: true });
    });
  try {
    await upsert();
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    await upsert();
  }
}

/**
 * Whether the user's consent still covers the scopes of a token (Keycloak's
 * TokenManager.verifyConsentStillAvailable, checked on refresh): always for a client without
 * `consentRequired`, else every scope shown on the consent screen must be granted.
 */
export async function consentStillCovers(db: Db, user: UserModel, client: ClientModel, scope: string): Promise<boolean> {
  if (client.settings.consentRequired !== true) return true;
  const granted = (await grantedScopeIds(db, user, client)) ?? new Set<string>();
  const scopes = await effectiveClientScopes(db, client, scope);
  return scopes.filter(shownOnScreen).every((s) => granted.has(s.id));
}

/** The consent step of a login: pass (with the event's `consent` detail), the page to show, or "No" (access_denied). */
export type ConsentStep =
  | { kind: 'pass'; detail: string }
  | { kind: 'ask'; page: Extract<ActionPage, { page: 'consent' }> }
  | { kind: 'denied' };

/** Runs the consent step: the page, or the posted answer (`accept` grants, `cancel` denies). */
export async function consentStep(
  ctx: LoginContext,
  posted: { executionId: string; form: Record<string, string> } | undefined,
): Promise<ConsentStep> {
  const decision = await consentDecision(ctx);
  if (!decision.ask) return { kind: 'pass', detail: decision.detail };
  if (posted?.executionId === OAUTH_GRANT && 'cancel' in posted.form) return { kind: 'denied' };
  if (posted?.executionId === OAUTH_GRANT && 'accept' in posted.form) {
    await grantConsent(ctx.db, ctx.user as UserModel, ctx.client, decision.scopes);
    return { kind: 'pass', detail: 'consent_granted' };
  }
  const clientName = ctx.client.name || ctx.client.clientId;
  const attrs = (ctx.client.settings.attributes ?? {}) as Record<string, string>;
  // Keycloak requests the client itself as a scope: with display.on.consent.screen its line (consent.screen.text, else clientId) is shown.
  const own =
    attrs['display.on.consent.screen'] === 'true'
      ? [{ scope: ctx.client.clientId, text: attrs['consent.screen.text'] || ctx.client.clientId }]
      : [];
  const link = (v: string | undefined) => (v && /^https?:\/\//i.test(v) ? v : undefined);
  const client = { tosUri: link(attrs.tosUri), policyUri: link(attrs.policyUri), logoUri: link(attrs.logoUri) };
  return {
    kind: 'ask',
    page: { page: 'consent', executionId: OAUTH_GRANT, clientName, client, scopes: [...own, ...consentLines(decision.scopes)] },
  };
}
