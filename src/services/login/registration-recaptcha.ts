import type { AuthExecutionModel } from '../../db/models/authentication';
import { getLogger } from '../../logging';
import { authenticatorConfig } from './authenticators';
import type { Message } from './authorize';
import type { LoginContext } from './flow-engine';

/**
 * registration-recaptcha-action (Keycloak's RegistrationRecaptcha, reCAPTCHA v2 or v3 "classic"):
 * the execution's config names `site.key` and `secret.key` (`useRecaptchaNet` loads from
 * recaptcha.net, `recaptcha.v3` makes it invisible, `action` names the action). The page gets Google's
 * widget (the realm's CSP must allow its frames and script, as for Keycloak); the POST's
 * `g-recaptcha-response` is checked at Google's siteverify with the secret and the client's address.
 * Without a response, a refused one or an unreachable Google: "Invalid Recaptcha". Without the keys:
 * "Recaptcha is required, but not configured." and no registration.
 */
const log = getLogger('idserver.services.login.registration-recaptcha');

export const RECAPTCHA = 'registration-recaptcha-action';

/** What the page needs for the widget. */
export interface RecaptchaWidget {
  siteKey: string;
  action: string;
  v3: boolean;
  scriptUrl: string;
}

async function configOf(ctx: LoginContext, exec: AuthExecutionModel): Promise<Record<string, string>> {
  return { ...((await authenticatorConfig(ctx, exec)) ?? {}) };
}

const domainOf = (config: Record<string, string>) => (config.useRecaptchaNet === 'true' ? 'recaptcha.net' : 'google.com');

/** The widget of an enabled reCAPTCHA action, or `not-configured` (its keys missing). */
export async function recaptchaWidget(ctx: LoginContext, exec: AuthExecutionModel): Promise<RecaptchaWidget | 'not-configured'> {
  const config = await configOf(ctx, exec);
  if (!config['site.key'] || !config['secret.key']) return 'not-configured';
  return {
    siteKey: config['site.key'],
    action: config.action || 'register',
    v3: config['recaptcha.v3'] === 'true',
    scriptUrl: `https://www.${domainOf(config)}/recaptcha/api.js`,
  };
}

/** Checks the form's `g-recaptcha-response` at Google; adds the page's message to `errors` when it fails. */
export async function validateRecaptcha(
  ctx: LoginContext,
  exec: AuthExecutionModel,
  errors: Map<string, Message>,
): Promise<string | undefined> {
  const config = await configOf(ctx, exec);
  const fail = (key: string) => {
    errors.set('recaptcha', { key });
    return 'invalid_registration';
  };
  if (!config['site.key'] || !config['secret.key']) return fail('recaptchaNotConfigured');
  const response = typeof ctx.form?.['g-recaptcha-response'] === 'string' ? ctx.form['g-recaptcha-response'] : '';
  if (!response) return fail('recaptchaFailed');
  const body = new URLSearchParams({ secret: config['secret.key'], response });
  if (ctx.ipAddress) body.set('remoteip', ctx.ipAddress);
  try {
    const res = await fetch(`https://www.${domainOf(config)}/recaptcha/api/siteverify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
      signal: AbortSignal.timeout(5000),
    });
    const json = (await res.json()) as { success?: unknown };
    return json.success === true ? undefined : fail('recaptchaFailed');
  } catch (e) {
    log.warn(`reCAPTCHA verification failed: ${(e as Error).message}`);
    return fail('recaptchaFailed');
  }
}
