import type { RequestContext } from '../../core/context';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { ClientRepresentation } from '../../representations/client';
import { clientPoliciesOnRegistrationEvent } from '../client-policies';
import type { RegistrationAuth } from './registration-policies';

/**
 * The one place where the realm's client policies (`/client-policies/policies` and `.../profiles`)
 * are to be evaluated for the client registration service: Keycloak triggers them with
 * DynamicClientRegisterContext (REGISTER) and DynamicClientUpdateContext (UPDATE) before the
 * registration policies run. Executors may change the representation (auto-configure), refuse the
 * request (throw `ClientPolicyViolation`) or turn the rotation of the registration access token off
 * (`registration-access-token-rotation-disabled`). The engine is src/services/client-policies (ADR 0032).
 */

export type ClientPolicyEvent = 'REGISTER' | 'UPDATE';

export interface ClientPolicyContext {
  event: ClientPolicyEvent;
  ctx: RequestContext;
  realm: RealmModel;
  /** The requested client; executors may change it. */
  rep: ClientRepresentation;
  /** The stored client (UPDATE). */
  client?: ClientModel;
  /** How the caller registered: `client-updater-context` tells anonymous, initial-access and bearer callers apart with it. */
  auth: RegistrationAuth;
  by: 'anonymous' | 'initial-access-token' | 'bearer' | 'registration-access-token';
  /** The user of a bearer caller's token (client-updater-source-roles / -groups judge it) and the caller's address (-host). */
  userId?: string;
  ipAddress?: string;
  /** Whether an update issues a new registration access token (Keycloak's ROTATION_ENABLED). */
  rotateRegistrationAccessToken: boolean;
}

/** A client policy's refusal: Keycloak's ClientPolicyException (`error`, `error_description`). */
export { ClientPolicyViolation } from '../client-policies';

const SOURCES = {
  anonymous: 'ByAnonymous',
  'initial-access-token': 'ByInitialAccessToken',
  bearer: 'ByAuthenticatedUser',
  'registration-access-token': 'ByRegistrationAccessToken',
} as const;

/** Evaluates the realm's client policies on a registration-service REGISTER or UPDATE. */
export async function clientPoliciesOnRegistration(c: ClientPolicyContext): Promise<void> {
  const registration = { rotateRegistrationAccessToken: c.rotateRegistrationAccessToken };
  await clientPoliciesOnRegistrationEvent({
    event: c.event,
    ctx: c.ctx,
    realm: c.realm,
    rep: c.rep,
    client: c.client,
    source: SOURCES[c.by],
    userId: c.userId,
    ipAddress: c.ipAddress,
    registration,
  });
  c.rotateRegistrationAccessToken = registration.rotateRegistrationAccessToken;
}
