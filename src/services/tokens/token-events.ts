import type { Db } from '../../db';
import type { BaseEventTypeName, EventTypeName } from '../../keycloak/event-types';
import type { RealmModel } from '../../db/models/realm';
import { HttpError } from '../../core/errors';
import { recordEvent } from '../../core/user-events';

/**
 * The user event of one token request (reference §7.1): LOGIN, CLIENT_LOGIN or REFRESH_TOKEN on
 * success, the `_ERROR` variant with Keycloak's error code on failure. Stored only when the realm
 * records that type (`recordEvent` filters).
 */
export const EVENT_OF_GRANT: Record<string, BaseEventTypeName> = {
  password: 'LOGIN',
  client_credentials: 'CLIENT_LOGIN',
  refresh_token: 'REFRESH_TOKEN',
  authorization_code: 'CODE_TO_TOKEN',
  'urn:openid:params:grant-type:ciba': 'AUTHREQID_TO_TOKEN',
};

export class TokenEvent {
  clientId: string | null = null;
  userId: string | null = null;
  sessionId: string | null = null;
  readonly details: Record<string, string> = {};

  constructor(
    private readonly db: Db,
    private readonly realm: RealmModel,
    public type: BaseEventTypeName,
    private readonly ipAddress?: string,
  ) {}

  detail(key: string, value: string | undefined | null): this {
    if (value !== undefined && value !== null) this.details[key] = value;
    return this;
  }

  private record(type: EventTypeName, error?: string): Promise<void> {
    const { clientId, userId, sessionId, details } = this;
    return recordEvent(this.db, this.realm, { type, clientId, userId, sessionId, ipAddress: this.ipAddress ?? null, error, details });
  }

  success(): Promise<void> {
    return this.record(this.type);
  }

  error(code: string): Promise<void> {
    return this.record(`${this.type}_ERROR` as const, code);
  }

  /** Records the error event, then returns the OAuth error to throw. */
  async fail(code: string, err: HttpError): Promise<HttpError> {
    await this.error(code);
    return err;
  }
}

/** Event error code of a client-authentication failure. */
export function clientErrorCode(e: unknown): string {
  if (e instanceof HttpError && e.body.error === 'invalid_client') return 'client_not_found';
  if (e instanceof HttpError && e.body.error_description === 'Invalid client or Invalid client credentials')
    return 'invalid_client_credentials';
  return 'invalid_client';
}
