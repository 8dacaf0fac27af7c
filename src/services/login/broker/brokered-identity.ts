/**
 * The identity an identity provider vouched for (Keycloak's BrokeredIdentityContext), kept as JSON in
 * the authentication session's notes while the first broker login flow runs, so any node can go on.
 */
export interface BrokeredIdentity {
  alias: string;
  /** The user's id at the provider (the `sub` claim). */
  id: string;
  username: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  /** The ID token's and userinfo's claims (the mappers read them). */
  claims: Record<string, unknown>;
  /** The token response as JSON (stored on the link when the provider's `storeToken` is on). */
  token: string | null;
  brokerSessionId?: string;
  /** The username the local account gets (set when the first broker login starts). */
  modelUsername?: string;
}

/** Notes of a login that goes through an identity provider. */
export const BROKER_NOTES = {
  /** The state, nonce and PKCE verifier of the request sent to the provider, as JSON with its alias. */
  PENDING: 'BROKER_PENDING',
  /** The brokered identity (JSON) during the first broker login and post broker login flows. */
  CONTEXT: 'BROKERED_CONTEXT',
  /** The existing account a first broker login found (idp-create-user-if-unique), by id. */
  EXISTING_USER: 'EXISTING_USER_INFO',
  /** The first broker login created the user. */
  REGISTERED_NEW_USER: 'BROKER_REGISTERED_NEW_USER',
  /** The review page changed the e-mail address (trustEmail then does not mark it verified). */
  EMAIL_CHANGED: 'UPDATE_PROFILE_EMAIL_CHANGED',
  /** The login ended in the first broker login (events, the link). */
  WAS_FIRST_LOGIN: 'BROKER_WAS_FIRST_LOGIN',
  /** The user cancelled at the provider: the browser flow does not redirect to one again. */
  CANCELLED: 'BROKER_CANCELLED',
  /** The provider of a finished brokered login (user session notes and LOGIN details). */
  DONE_ALIAS: 'BROKER_DONE_ALIAS',
  DONE_USERNAME: 'BROKER_DONE_USERNAME',
} as const;

export const FIRST_BROKER_LOGIN_PATH = 'first-broker-login';
export const POST_BROKER_LOGIN_PATH = 'post-broker-login';

/** The brokered identity of a login's notes, if any. */
export function identityOf(notes: Record<string, string>): BrokeredIdentity | undefined {
  const raw = notes[BROKER_NOTES.CONTEXT];
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as BrokeredIdentity;
  } catch {
    return undefined;
  }
}
