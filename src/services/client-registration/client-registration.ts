import { Op } from 'sequelize';
import { hasAny } from '../../auth/permissions';
import { nowSeconds } from '../../core/clock';
import type { RequestContext } from '../../core/context';
import { errorB, HttpError } from '../../core/errors';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { BaseEventTypeName } from '../../keycloak/event-types';
import { invalidate } from '../../loaders/invalidate';
import type { ClientRepresentation } from '../../representations/client';
import { createClient, deleteClient, updateClient } from '../clients/client-writes';
import { clientRepresentations } from '../clients/clients';
import { TokenEvent } from '../tokens/token-events';
import { invalidMetadata, type OidcClientMetadata, oidcToClient, toOidcResponse } from './client-metadata';
import { type ClientPolicyContext, ClientPolicyViolation, clientPoliciesOnRegistration } from './client-policy-hook';
import {
  bearerClientProtocol,
  type Caller,
  checkClientProtocol,
  clientNotFound,
  currentlySigned,
  forbidden,
  holdsRegistrationToken,
  newRegistrationToken,
  type RegistrationRequest,
  readCaller,
  registrationAuthOf,
  unauthorized,
} from './registration-auth';
import {
  PolicyRejection,
  type PolicyRequest,
  policiesOnDelete,
  policiesOnRegister,
  policiesOnUpdate,
  policiesOnView,
  type RegistrationAuth,
} from './registration-policies';

/**
 * The client registration service (Keycloak's ClientRegistrationService, its `default` and
 * `openid-connect` providers and AbstractClientRegistrationProvider):
 * `/realms/{realm}/clients-registrations/{provider}[/{clientId}]`. A client is created, updated and
 * deleted through the admin API's client service (the same validation, uniqueness, defaults and admin
 * events), as the bearer caller or, for an initial access token, a registration access token or no
 * token, as the server itself. The CLIENT_REGISTER, CLIENT_INFO, CLIENT_UPDATE and CLIENT_DELETE user
 * events (and their `_ERROR`s) are recorded.
 */

export type { RegistrationRequest } from './registration-auth';

/** A registration's answer: the new client's registration URI and the body. */
export interface Registered {
  location: string;
  body: Record<string, unknown>;
}

const isOidc = (r: RegistrationRequest) => r.provider === 'openid-connect';

/** The registration URI of a client: `{issuer}/clients-registrations/{provider}/{clientId}`. */
const clientUri = (r: RegistrationRequest, clientId: string) =>
  `${r.ctx.baseUrl}/realms/${encodeURIComponent(r.realm.name)}/clients-registrations/${r.provider}/${encodeURIComponent(clientId)}`;

const eventOf = (r: RegistrationRequest, type: BaseEventTypeName) => new TokenEvent(r.ctx.db, r.realm, type, r.remoteAddress);

/** The context a write runs in: the bearer caller's, else the server's (the token was the permission). */
const writeCtxOf = (r: RegistrationRequest, caller: Caller): RequestContext => (caller.kind === 'bearer' ? caller.ctx : r.ctx);

const byOf = (caller: Caller): ClientPolicyContext['by'] =>
  caller.kind === 'none'
    ? 'anonymous'
    : caller.kind === 'initial'
      ? 'initial-access-token'
      : caller.kind === 'bearer'
        ? 'bearer'
        : 'registration-access-token';

/** Who writes, for the client policies: a bearer caller's user (Keycloak reads the token's subject) and the request's address. */
const updaterOf = (r: RegistrationRequest, caller: Caller) => ({
  userId: caller.kind === 'bearer' ? caller.ctx.actor?.userId : undefined,
  ipAddress: r.remoteAddress,
});

const policyRequest = (r: RegistrationRequest): PolicyRequest => ({
  ctx: r.ctx,
  realm: r.realm,
  remoteAddress: r.remoteAddress,
  corsOrigins: r.corsOrigins,
});

/** Runs the client policies, then the registration policies; a refusal is Keycloak's 403 with its event. */
async function runPolicies(ev: TokenEvent, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof PolicyRejection) throw await forbidden(ev, e.message);
    if (e instanceof ClientPolicyViolation) {
      ev.detail('reason', 'client_policy_error').detail('client_policy_error', e.error).detail('client_policy_error_detail', e.detail);
      // Keycloak's ClientRegistrationAuth answers forbidden(cpe.getMessage()): the message of a ClientPolicyException is its error code.
      throw await forbidden(ev, e.error);
    }
    throw e;
  }
}

/** A client's errors from the client service as the registration service words them (invalid metadata). */
function asMetadataError(e: unknown): unknown {
  if (!(e instanceof HttpError)) return e;
  if (e.status === 409) return invalidMetadata('Client Identifier in use');
  if (e.status !== 400) return e;
  const text = String(e.body.errorMessage ?? e.body.error_description ?? e.body.error ?? 'Client metadata invalid');
  return /redirect/i.test(text) ? errorB(400, 'invalid_redirect_uri', text) : invalidMetadata(text);
}

async function clientByClientId(r: RegistrationRequest, clientId: string): Promise<ClientModel | null> {
  return r.ctx.db.models.Client.findOne({ where: { realmId: r.realm.id, clientId } });
}

/** The stored client as the registration service answers it (no `access`; the secret of a confidential client). */
async function representation(ctx: RequestContext, realm: RealmModel, uuid: string): Promise<ClientRepresentation> {
  invalidate.client(ctx.loaders, uuid);
  const client = (await ctx.loaders.clientById.load(uuid)) as ClientModel;
  const [rep] = await clientRepresentations(ctx, realm, [client]);
  const { access: _access, ...rest } = rep;
  return rest;
}

function render(r: RegistrationRequest, rep: ClientRepresentation, uri: string): Record<string, unknown> {
  return isOidc(r) ? toOidcResponse(rep, uri) : (rep as Record<string, unknown>);
}

/**
 * The representation a request body asks for (OIDC metadata converted); `client_id` is refused on
 * create. A `scope` (even an empty one) names the optional client scopes (DescriptionConverter).
 */
function requested(r: RegistrationRequest, body: Record<string, unknown>, create: boolean): ClientRepresentation {
  if (!isOidc(r)) return { ...(body as ClientRepresentation) };
  if (create && body.client_id !== undefined && body.client_id !== null) throw invalidMetadata('Client Identifier included');
  const rep = oidcToClient(body as OidcClientMetadata);
  if (typeof body.scope === 'string' && rep.optionalClientScopes == null) rep.optionalClientScopes = [];
  return rep;
}

/**
 * A create naming optional client scopes but no default ones gets the default scope `basic` only
 * (Keycloak 26's AbstractClientRegistrationProvider#create, before the policies see the request):
 * the realm's other default scopes are not attached (ADR 0031).
 */
function defaultScopesOfCreate(rep: ClientRepresentation): void {
  if (rep.optionalClientScopes != null && rep.defaultClientScopes == null) rep.defaultClientScopes = ['basic'];
}

/** Refusals of a create (ClientRegistrationAuth#requireCreate): the caller's right, the token's uses, then the policies. */
async function requireCreate(r: RegistrationRequest, caller: Caller, ev: TokenEvent, rep: ClientRepresentation): Promise<RegistrationAuth> {
  let auth: RegistrationAuth = 'anonymous';
  if (caller.kind === 'bearer') {
    if (!(await hasAny(caller.ctx, r.realm, 'manage-clients', 'create-client'))) throw await forbidden(ev);
    auth = 'authenticated';
  } else if (caller.kind === 'initial') {
    const ia = caller.initialAccess;
    if (Number(ia.remainingCount) <= 0) throw await unauthorized(ev, 'No remaining count on initial access token');
    const expiration = Number(ia.expiration);
    if (expiration !== 0 && Number(ia.timestamp) + expiration <= nowSeconds()) throw await unauthorized(ev, 'Expired initial access token');
    auth = 'authenticated';
  } else if (caller.kind === 'registration') {
    // A registration access token creates nothing: Keycloak treats the request as anonymous.
    auth = 'anonymous';
  }
  const policyCtx: ClientPolicyContext = {
    event: 'REGISTER',
    ctx: r.ctx,
    realm: r.realm,
    rep,
    auth,
    by: byOf(caller),
    ...updaterOf(r, caller),
    rotateRegistrationAccessToken: true,
  };
  await runPolicies(ev, async () => {
    await clientPoliciesOnRegistration(policyCtx);
    await policiesOnRegister(policyRequest(r), auth, rep);
  });
  return auth;
}

/** POST /realms/{realm}/clients-registrations/{provider}: registers a client; 201 with its registration access token. */
export async function registerClient(r: RegistrationRequest, body: Record<string, unknown>): Promise<Registered> {
  const rep = requested(r, body, true);
  defaultScopesOfCreate(rep);
  const ev = eventOf(r, 'CLIENT_REGISTER');
  const caller = await readCaller(r, ev);
  const auth = await requireCreate(r, caller, ev, rep);
  const ctx = writeCtxOf(r, caller);
  const m = r.ctx.db.models;
  const { jti, token } = await newRegistrationToken(r.ctx, r.realm, auth);
  let exhausted = false;
  let uuid: string;
  try {
    uuid = await r.ctx.db.transaction(async () => {
      if (caller.kind === 'initial') {
        // The use is counted in the write that creates the client; a token used up meanwhile creates nothing.
        const [n] = await m.ClientInitialAccess.update(
          { remainingCount: r.ctx.db.sequelize.literal('remaining_count - 1') },
          { where: { id: caller.initialAccess.id, remainingCount: { [Op.gt]: 0 } } },
        );
        if (n !== 1) {
          exhausted = true;
          throw new Error('initial access token used up');
        }
      }
      const id = await createClient(ctx, r.realm, rep);
      const row = await m.Client.findByPk(id);
      await m.Client.update({ settings: { ...(row as ClientModel).settings, registrationAccessTokenJti: jti } }, { where: { id } });
      return id;
    });
  } catch (e) {
    if (exhausted) throw await unauthorized(ev, 'No remaining count on initial access token');
    throw asMetadataError(e);
  }
  const out = await representation(ctx, r.realm, uuid);
  out.registrationAccessToken = token;
  ev.clientId = out.clientId ?? null;
  await ev.success();
  const location = clientUri(r, String(out.clientId));
  const answer = render(r, out, location);
  if (isOidc(r)) answer.client_id_issued_at = nowSeconds();
  return { location, body: answer };
}

/** GET /realms/{realm}/clients-registrations/{provider}/{clientId}: the client, for its registration token or a viewer's bearer token. */
export async function getRegisteredClient(r: RegistrationRequest, clientId: string): Promise<Record<string, unknown>> {
  const ev = eventOf(r, 'CLIENT_INFO');
  const caller = await readCaller(r, ev);
  const client = await clientByClientId(r, clientId);
  let auth: RegistrationAuth;
  if (caller.kind === 'bearer') {
    checkClientProtocol(r.provider, await bearerClientProtocol(caller));
    if (!(await hasAny(caller.ctx, r.realm, 'manage-clients', 'view-clients'))) throw await forbidden(ev);
    if (!client) throw await clientNotFound(ev);
    auth = 'authenticated';
  } else if (holdsRegistrationToken(caller, client) && caller.kind === 'registration') {
    checkClientProtocol(r.provider, client?.protocol);
    auth = registrationAuthOf(caller.claims);
  } else if (caller.kind === 'initial') {
    throw await unauthorized(ev, 'Not initial access token allowed');
  } else {
    throw await unauthorized(ev, 'Not authorized to view client. Not valid token or client credentials provided.');
  }
  const found = client as ClientModel;
  await runPolicies(ev, () => policiesOnView(policyRequest(r), auth, found.clientId));
  const out = await representation(writeCtxOf(r, caller), r.realm, found.id);
  if (caller.kind === 'registration') out.registrationAccessToken = await currentlySigned(r.ctx, r.realm, caller);
  ev.clientId = found.clientId;
  await ev.success();
  return render(r, out, clientUri(r, found.clientId));
}

/** The registration auth of an update or delete (ClientRegistrationAuth#requireUpdateAuth). */
async function requireUpdateAuth(
  r: RegistrationRequest,
  caller: Caller,
  ev: TokenEvent,
  client: ClientModel | null,
): Promise<RegistrationAuth> {
  if (caller.kind === 'bearer') {
    checkClientProtocol(r.provider, await bearerClientProtocol(caller));
    if (!(await hasAny(caller.ctx, r.realm, 'manage-clients'))) throw await forbidden(ev);
    if (!client) throw await clientNotFound(ev);
    return 'authenticated';
  }
  if (caller.kind === 'registration' && holdsRegistrationToken(caller, client)) return registrationAuthOf(caller.claims);
  throw await unauthorized(ev, 'Not authorized to update client. Maybe missing token or bad token type.');
}

/** PUT /realms/{realm}/clients-registrations/{provider}/{clientId}: updates the client; a new registration access token. */
export async function updateRegisteredClient(
  r: RegistrationRequest,
  clientId: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const rep = requested(r, body, false);
  const ev = eventOf(r, 'CLIENT_UPDATE');
  ev.clientId = clientId;
  const caller = await readCaller(r, ev);
  const client = await clientByClientId(r, clientId);
  const auth = await requireUpdateAuth(r, caller, ev, client);
  const found = client as ClientModel;
  const ctx = writeCtxOf(r, caller);
  const current = await representation(r.ctx, r.realm, found.id);
  // OIDC metadata with `scope` sets the optional client scopes and keeps the current default ones
  // (Keycloak's OIDCClientRegistrationProvider#updateOIDC); without it the scopes stay as they are.
  if (isOidc(r) && typeof body.scope === 'string') rep.defaultClientScopes = [...(current.defaultClientScopes ?? [])];
  const policyCtx: ClientPolicyContext = {
    event: 'UPDATE',
    ctx: r.ctx,
    realm: r.realm,
    rep,
    client: found,
    auth,
    by: byOf(caller),
    ...updaterOf(r, caller),
    rotateRegistrationAccessToken: true,
  };
  await runPolicies(ev, async () => {
    await clientPoliciesOnRegistration(policyCtx);
    await policiesOnUpdate(policyRequest(r), auth, rep, current);
  });
  if (rep.clientId !== found.clientId) throw invalidMetadata('Client Identifier modified');
  // Authorization services stay as they are: the registration update (AbstractClientRegistrationProvider#update,
  // RepresentationToModel#updateClient) does not read authorizationServicesEnabled, so an OIDC `grant_types`
  // with or without the UMA grant turns nothing on or off; the default provider's authorizationSettings
  // turn them on (DefaultClientRegistrationProvider#updateDefault imports them).
  rep.authorizationServicesEnabled = current.authorizationServicesEnabled === true || (!isOidc(r) && rep.authorizationSettings != null);
  const rotated =
    caller.kind === 'registration' && policyCtx.rotateRegistrationAccessToken ? await newRegistrationToken(r.ctx, r.realm, auth) : null;
  try {
    await r.ctx.db.transaction(async () => {
      await updateClient(ctx, r.realm, found.id, rep);
      if (rotated) {
        const row = (await r.ctx.db.models.Client.findByPk(found.id)) as ClientModel;
        await r.ctx.db.models.Client.update(
          { settings: { ...row.settings, registrationAccessTokenJti: rotated.jti } },
          { where: { id: found.id } },
        );
      }
    });
  } catch (e) {
    throw asMetadataError(e);
  }
  const out = await representation(ctx, r.realm, found.id);
  if (rotated) out.registrationAccessToken = rotated.token;
  else if (caller.kind === 'registration') out.registrationAccessToken = await currentlySigned(r.ctx, r.realm, caller);
  await ev.success();
  return render(r, out, clientUri(r, found.clientId));
}

/** DELETE /realms/{realm}/clients-registrations/{provider}/{clientId}: deletes the client (204). */
export async function deleteRegisteredClient(r: RegistrationRequest, clientId: string): Promise<void> {
  const ev = eventOf(r, 'CLIENT_DELETE');
  ev.clientId = clientId;
  const caller = await readCaller(r, ev);
  const client = await clientByClientId(r, clientId);
  const auth = await requireUpdateAuth(r, caller, ev, client);
  const found = client as ClientModel;
  await runPolicies(ev, () => policiesOnDelete(policyRequest(r), auth, found.clientId));
  await deleteClient(writeCtxOf(r, caller), r.realm, found.id);
  await ev.success();
}
