import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { ClientRepresentation } from '../../representations/client';

/** The shapes the client-policy engine, its conditions and its executors share (ADR 0032). */
export type Vote = 'YES' | 'NO' | 'ABSTAIN';

export type PolicyEvent =
  | 'REGISTER'
  | 'UPDATE'
  | 'PRE_AUTHORIZATION_REQUEST'
  | 'AUTHORIZATION_REQUEST'
  | 'PUSHED_AUTHORIZATION_REQUEST'
  | 'TOKEN_REQUEST'
  | 'RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST'
  | 'SERVICE_ACCOUNT_TOKEN_REQUEST'
  | 'TOKEN_REFRESH'
  | 'TOKEN_REFRESH_RESPONSE'
  | 'LOGOUT_REQUEST'
  | 'BACKCHANNEL_AUTHENTICATION_REQUEST'
  | 'BACKCHANNEL_TOKEN_REQUEST'
  | 'TOKEN_REVOKE';

/** Who writes the client (client-updater-context's `update-client-source` values). */
export type UpdaterSource = 'ByAuthenticatedUser' | 'ByAnonymous' | 'ByInitialAccessToken' | 'ByRegistrationAccessToken';

export interface PolicyContext {
  event: PolicyEvent;
  db: Db;
  realm: RealmModel;
  /** The stored client: the one updated (UPDATE) or the one of the request (authorization, token). */
  client?: ClientModel;
  /** The proposed representation (REGISTER, UPDATE); auto-configuring executors change it. */
  rep?: ClientRepresentation;
  /** The writer of a REGISTER / UPDATE. */
  updater?: { source: UpdaterSource; userId?: string; ipAddress?: string };
  /** The request's parameters (authorization request: the query resolved with a pushed request or request object; token request form). */
  params?: Record<string, string | undefined>;
  /** Authorization request: the query as sent (before a pushed request or request object was applied). */
  rawParams?: Record<string, string | undefined>;
  /** Authorization / pushed request: the verified request object's claims, if one was sent. */
  requestObject?: Record<string, unknown>;
  /** Whether that request object came encrypted to the realm (secure-request-object `encryption-required`). */
  requestObjectEncrypted?: boolean;
  /** Authorization request: whether its parameters came from a pushed request. */
  par?: boolean;
  /** The realm's issuer URL (the audience a request object must name). */
  issuer?: string;
  /** Token requests: what the tokens will be bound to (executors may narrow it) and the client certificate (ADR 0038). */
  binding?: { jkt?: string; bindOnlyRefresh?: boolean };
  clientCert?: { x5t: string; subjectDn: string };
  /** Token revocation (TOKEN_REVOKE): the request's `DPoP` proof and URL (dpop-bind-enforcer verifies the proof itself there). */
  revocation?: { dpop?: string; url: string };
  /** Backchannel authentication request (CIBA): its binding message, as parsed (ADR 0044). */
  ciba?: { bindingMessage?: string };
  /** What executors decide for the rest of the request (Keycloak's session attributes and authentication-session notes). */
  effects?: PolicyEffects;
  /** TOKEN_REFRESH_RESPONSE: the response about to be sent (suppress-refresh-token-rotation drops its refresh token). */
  response?: { refresh_token?: string; refresh_expires_in: number };
  /** Registration service only: whether an update issues a new registration access token. */
  registration?: { rotateRegistrationAccessToken: boolean };
}

/** What executors set for the rest of the request; the caller that passed the object acts on it. */
export interface PolicyEffects {
  /** use-lightweight-access-token (Keycloak's session attribute `client.use.lightweight.access.token.enabled`). */
  lightweightAccessToken?: boolean;
  /** auth-flow-enforcer (Keycloak's notes `requested-authentication-flow`, `authentication-flow-level-of-authentication`). */
  authFlow?: { alias: string; loa?: string };
}

/** A client policy's refusal: Keycloak's ClientPolicyException (`error`, `error_description`, the status where the endpoint uses it; 400 by default). */
export class ClientPolicyViolation extends Error {
  constructor(
    readonly error: string,
    readonly detail: string,
    readonly status = 400,
  ) {
    super(detail);
  }
}
