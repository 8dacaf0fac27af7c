import type { Message } from './authorize';
import type { LoginContext, ProfileField } from './flow-engine';

/**
 * What a required action is to the login (required-actions.ts runs them; each action may live in a
 * file of its own, verify-email.ts for one): the page it shows and what processing its form gives.
 */

/** The pages of the required actions. */
export type ActionPage = (
  | { page: 'update-password'; executionId: string; status?: number; message?: Message; username: string }
  | { page: 'terms'; executionId: string; status?: number }
  | { page: 'update-profile'; executionId: string; status?: number; message?: Message; verify: boolean; fields: ProfileField[] }
  | { page: 'delete-credential'; executionId: string; status?: number; credentialLabel: string }
  | { page: 'verify-email'; executionId: string; status?: number; message?: Message; email: string }
  /** The consent page (OAUTH_GRANT): the client's name and the scopes' consent texts (`${key}` or plain text). */
  | {
      page: 'consent';
      executionId: string;
      status?: number;
      clientName: string;
      /** The client's links (tosUri, policyUri, logoUri attributes; http(s) only). */
      client?: { tosUri?: string; policyUri?: string; logoUri?: string };
      scopes: Array<{ scope: string; text: string }>;
    }
  | {
      page: 'totp-setup';
      executionId: string;
      status?: number;
      message?: Message;
      secret: string;
      uri: string;
      /** The otpauth URI as a QR code: a data: URL of a PNG. */
      qr: string;
      digits: number;
      period: number;
      algorithm: string;
      type: string;
    }
) & {
  /** An application-initiated action (kc_action) the user may cancel: the page offers a cancel button (`cancel-aia`). */
  cancelable?: boolean;
};

export type { ProfileField };

export type ActionOutcome =
  | { kind: 'success' }
  | { kind: 'challenge'; page: ActionPage }
  | { kind: 'failure'; error: string }
  /** An application-initiated action that could not run (kc_action_status=error); the login goes on. */
  | { kind: 'error'; error: string };

export interface RequiredActionImpl {
  /** Before the page: `done` completes the action without one (e-mail already verified), `ignore` passes it over this time. */
  skip?(ctx: LoginContext): Promise<'done' | 'ignore' | undefined>;
  challenge(ctx: LoginContext, alias: string): Promise<ActionPage>;
  process(ctx: LoginContext, alias: string, form: Record<string, string>): Promise<ActionOutcome>;
}
