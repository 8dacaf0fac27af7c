import type { RequestContext } from '../../core/context';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { ClientRepresentation } from '../../representations/client';
import type { RegistrationAuth } from './registration-policies';

/**
 * The one place where the realm's client policies (`/client-policies/policies` and `.../profiles`)
 * are to be evaluated for the client registration service: Keycloak triggers them with
 * DynamicClientRegisterContext (REGISTER) and DynamicClientUpdateContext (UPDATE) before the
 * registration policies run. Executors may change the representation (auto-configure), refuse the
 * request (throw `ClientPolicyViolation`) or turn the rotation of the registration access token off
 * (`registration-access-token-rotation-disabled`). Today no executor acts here (issue 16 item 2).
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
  /** Whether an update issues a new registration access token (Keycloak's ROTATION_ENABLED). */
  rotateRegistrationAccessToken: boolean;
}

/** A client policy's refusal: Keycloak's ClientPolicyException (`error`, `error_description`). */
export class ClientPolicyViolation extends Error {
  constructor(
    readonly error: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Evaluates the realm's client policies on a registration-service REGISTER or UPDATE (no executor acts yet). */
export async function clientPoliciesOnRegistration(_c: ClientPolicyContext): Promise<void> {}
