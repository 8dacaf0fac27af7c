import type { Db } from '../../../db';
import type { IdentityProviderModel } from '../../../db/models/identity-provider';
import type { RealmModel } from '../../../db/models/realm';
import type { UserModel } from '../../../db/models/user';
import type { BaseEventTypeName } from '../../../keycloak/event-types';
import { TokenEvent } from '../../tokens/token-events';
import { type FlowDefinitions, flowIdByAlias } from '../flow-definitions';
import type { LoginContext, Page, Registry } from '../flow-engine';
import { RESET_NOTES } from '../reset-credentials';
import { BROKER_NOTES, type BrokeredIdentity, FIRST_BROKER_LOGIN_PATH, identityOf, POST_BROKER_LOGIN_PATH } from './brokered-identity';
import { BROKER_REGISTRY } from './first-broker-authenticators';
import { applyIdpMappers } from './idp-mapper-runtime';

/**
 * The broker's part of a login after the provider vouched for the user (Keycloak's
 * IdentityBrokerService.afterFirstBrokerLogin and finishBrokerAuthentication): which flow runs
 * (first broker login: the provider's firstBrokerLoginFlowAlias, else the realm's
 * firstBrokerLoginFlow; post broker login: the provider's postBrokerLoginFlowAlias), then the link
 * (with the token when storeToken), the mappers, trustEmail, the REGISTER (register_method=broker) or
 * FEDERATED_IDENTITY_LINK event, and the notes the user session gets (identity_provider,
 * identity_provider_identity).
 */
const FLOW_PATH = RESET_NOTES.FLOW_PATH;

const pathOf = (ctx: { data: { notes: Record<string, string> } }) => ctx.data.notes[FLOW_PATH];

export const providerOf = (db: Db, realm: RealmModel, alias: string) =>
  db.models.IdentityProvider.findOne({ where: { realmId: realm.id, alias } });

/** The flow and registry of a login in the first or post broker login, else undefined. */
export async function brokerFlowOf(ctx: LoginContext, defs: FlowDefinitions): Promise<{ flowId?: string; registry: Registry } | undefined> {
  const path = pathOf(ctx);
  if (path !== FIRST_BROKER_LOGIN_PATH && path !== POST_BROKER_LOGIN_PATH) return undefined;
  const id = identityOf(ctx.data.notes);
  const idp = id ? await providerOf(ctx.db, ctx.realm, id.alias) : null;
  if (!id || !idp) return { registry: BROKER_REGISTRY };
  const realmFlow =
    typeof ctx.realm.settings.firstBrokerLoginFlow === 'string' ? ctx.realm.settings.firstBrokerLoginFlow : 'first broker login';
  const alias = path === FIRST_BROKER_LOGIN_PATH ? idp.firstBrokerLoginFlowAlias || realmFlow : idp.postBrokerLoginFlowAlias;
  ctx.ev.type = path === FIRST_BROKER_LOGIN_PATH ? 'IDENTITY_PROVIDER_FIRST_LOGIN' : 'IDENTITY_PROVIDER_POST_LOGIN';
  ctx.ev.detail('identity_provider', id.alias).detail('identity_provider_identity', id.username);
  return { flowId: alias ? flowIdByAlias(defs, alias) : undefined, registry: BROKER_REGISTRY };
}

/** A copy of the login's event as another type (Keycloak's event.clone()). */
function eventAs(ctx: LoginContext, type: BaseEventTypeName): TokenEvent {
  const e = new TokenEvent(ctx.db, ctx.realm, type, ctx.ipAddress);
  e.clientId = ctx.ev.clientId;
  e.userId = ctx.ev.userId;
  Object.assign(e.details, ctx.ev.details);
  return e;
}

/** Marks the brokered login done: the user session's notes and the LOGIN event's details come from these. */
export function markBrokerDone(notes: Record<string, string>, id: BrokeredIdentity): void {
  notes[BROKER_NOTES.DONE_ALIAS] = id.alias;
  notes[BROKER_NOTES.DONE_USERNAME] = id.username;
  delete notes[FLOW_PATH];
  delete notes[BROKER_NOTES.CONTEXT];
  delete notes[BROKER_NOTES.EXISTING_USER];
}

/** The user session notes of a brokered login (Keycloak's identity_provider and identity_provider_identity). */
export function brokerSessionNotes(notes: Record<string, string>): Record<string, string> | undefined {
  const alias = notes[BROKER_NOTES.DONE_ALIAS];
  return alias ? { identity_provider: alias, identity_provider_identity: notes[BROKER_NOTES.DONE_USERNAME] ?? '' } : undefined;
}

/** A later login of a linked user: the stored token (storeToken) and the mappers by sync mode. */
export async function updateBrokeredUser(db: Db, realm: RealmModel, idp: IdentityProviderModel, user: UserModel, id: BrokeredIdentity) {
  await db.transaction(async () => {
    if (idp.storeToken) {
      await db.models.FederatedIdentity.update({ token: id.token }, { where: { userId: user.id, identityProvider: idp.alias } });
    }
    await applyIdpMappers(db, realm, idp, user, id, 'update');
  });
}

async function grantReadToken(db: Db, realm: RealmModel, user: UserModel): Promise<void> {
  const broker = await db.models.Client.findOne({ where: { realmId: realm.id, clientId: 'broker' }, attributes: ['id'] });
  const role = broker ? await db.models.Role.findOne({ where: { clientId: broker.id, name: 'read-token' }, attributes: ['id'] }) : null;
  if (role) await db.models.UserRoleMapping.bulkCreate([{ userId: user.id, roleId: role.id }], { ignoreDuplicates: true });
}

/** The first broker login's flow succeeded: the link, then the mappers (import for a new user), trustEmail and the event. */
async function linkAfterFirstLogin(ctx: LoginContext, idp: IdentityProviderModel, id: BrokeredIdentity): Promise<Page | undefined> {
  const { db, realm, data } = ctx;
  const user = ctx.user as UserModel;
  const created = data.notes[BROKER_NOTES.REGISTERED_NEW_USER] === 'true';
  ctx.ev.userId = user.id;
  ctx.ev.detail('username', user.username);
  try {
    await db.transaction(async () => {
      await db.models.FederatedIdentity.create({
        userId: user.id,
        identityProvider: idp.alias,
        realmId: realm.id,
        federatedUserId: id.id,
        federatedUsername: id.username,
        token: idp.storeToken ? id.token : null,
      });
      if (idp.addReadTokenRoleOnCreate) await grantReadToken(db, realm, user);
      await applyIdpMappers(db, realm, idp, user, id, created ? 'import' : 'update');
      if (created && idp.trustEmail && user.email && !data.notes[BROKER_NOTES.EMAIL_CHANGED]) {
        user.emailVerified = true;
        await user.save();
      }
    });
  } catch (e) {
    if ((e as Error).name !== 'SequelizeUniqueConstraintError') throw e;
    await ctx.ev.error('federated_identity_account_exists');
    return { page: 'error', status: 409, message: { key: 'identityProviderUnexpectedErrorMessage' } };
  }
  if (created) await eventAs(ctx, 'REGISTER').detail('register_method', 'broker').detail('email', user.email).success();
  else await eventAs(ctx, 'FEDERATED_IDENTITY_LINK').success();
  return undefined;
}

/**
 * A broker flow succeeded: after the first broker login the link is made, then the provider's post
 * broker login flow runs (`again`) when it has one; otherwise the login completes.
 */
export async function afterBrokerFlow(ctx: LoginContext): Promise<{ kind: 'complete' } | { kind: 'again' } | { kind: 'page'; page: Page }> {
  const path = pathOf(ctx);
  const id = identityOf(ctx.data.notes);
  const idp = id ? await providerOf(ctx.db, ctx.realm, id.alias) : null;
  if (!id || !idp || !ctx.user)
    return { kind: 'page', page: { page: 'error', status: 400, message: { key: 'identityProviderUnexpectedErrorMessage' } } };
  if (path === FIRST_BROKER_LOGIN_PATH) {
    const failed = await linkAfterFirstLogin(ctx, idp, id);
    if (failed) return { kind: 'page', page: failed };
    if (idp.postBrokerLoginFlowAlias) {
      ctx.data.notes[FLOW_PATH] = POST_BROKER_LOGIN_PATH;
      for (const k of Object.keys(ctx.data.statuses)) delete ctx.data.statuses[k];
      return { kind: 'again' };
    }
  }
  markBrokerDone(ctx.data.notes, id);
  return { kind: 'complete' };
}

export const isBrokerFlow = (ctx: { data: { notes: Record<string, string> } }) =>
  pathOf(ctx) === FIRST_BROKER_LOGIN_PATH || pathOf(ctx) === POST_BROKER_LOGIN_PATH;
