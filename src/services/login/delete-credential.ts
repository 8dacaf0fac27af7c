import type { CredentialModel } from '../../db/models/user';
import { TokenEvent } from '../tokens/token-events';
import type { ActionOutcome, RequiredActionImpl } from './action-types';
import type { LoginContext } from './flow-engine';
import { kcActionOf } from './kc-action';

/**
 * delete_credential (Keycloak 24's DeleteCredentialAction): started by an application with
 * `kc_action=delete_credential:<credential id>`, it asks the user to confirm the removal of one of
 * their own credentials. The password cannot be removed this way (Keycloak's password type is not
 * removable); an unknown id, another user's credential or a missing id ends the action with
 * kc_action_status=error. A removal records REMOVE_CREDENTIAL (and the older REMOVE_TOTP for an OTP).
 */

/** Credential types a user may not remove (Keycloak: the password provider is not "removeable"). */
const NOT_REMOVABLE = new Set(['password', 'password-history']);

/** Keycloak's names of credential types, for a credential without a label. */
const TYPE_NAMES: Record<string, string> = { otp: 'Authenticator Application', webauthn: 'Passkey', 'webauthn-passwordless': 'Passkey' };

const event = (ctx: LoginContext, type: 'REMOVE_CREDENTIAL' | 'REMOVE_TOTP') => {
  const ev = new TokenEvent(ctx.db, ctx.realm, type, ctx.ipAddress);
  ev.clientId = ctx.client.clientId;
  ev.userId = ctx.user?.id ?? null;
  ev.detail('username', ctx.user?.username);
  return ev;
};

/** The credential the action names, or the event error that says why there is none. */
async function target(ctx: LoginContext): Promise<CredentialModel | string> {
  const id = kcActionOf(ctx)?.parameter;
  if (!id) return 'missing_credential_id';
  const user = ctx.user as NonNullable<LoginContext['user']>;
  const c = id.length <= 64 ? await ctx.db.models.Credential.findOne({ where: { id, userId: user.id } }) : null;
  if (!c || NOT_REMOVABLE.has(c.type)) return 'credential_not_found';
  return c;
}

const labelOf = (c: CredentialModel) => c.userLabel || TYPE_NAMES[c.type] || c.type;

export const deleteCredentialAction: RequiredActionImpl = {
  /** Without a removable credential of the user the action does not run (kc_action_status=error). */
  async skip(ctx) {
    const c = await target(ctx);
    if (typeof c !== 'string') return undefined;
    await event(ctx, 'REMOVE_CREDENTIAL').error(c);
    return 'ignore';
  },
  async challenge(ctx, alias) {
    const c = await target(ctx);
    return { page: 'delete-credential', executionId: alias, credentialLabel: typeof c === 'string' ? '' : labelOf(c) };
  },
  async process(ctx, alias, form): Promise<ActionOutcome> {
    const c = await target(ctx);
    if (typeof c === 'string') {
      await event(ctx, 'REMOVE_CREDENTIAL').error(c);
      return { kind: 'error', error: c };
    }
    if (!('accept' in form))
      return { kind: 'challenge', page: { page: 'delete-credential', executionId: alias, credentialLabel: labelOf(c) } };
    await c.destroy();
    const details = (ev: TokenEvent) =>
      ev.detail('credential_type', c.type).detail('credential_id', c.id).detail('credential_user_label', c.userLabel);
    await details(event(ctx, 'REMOVE_CREDENTIAL')).success();
    if (c.type === 'otp') await details(event(ctx, 'REMOVE_TOTP')).success();
    return { kind: 'success' };
  },
};
