import type * as Nodemailer from 'nodemailer';
import { requireCap } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import { errorA, HttpError } from '../../core/errors';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { validateRepresentation } from '../../representations/schema';
import type { SmtpServerRep } from '../../representations/smtp';

/**
 * Outgoing mail through a realm's `smtpServer` settings (reference §4.14, config §10.5): host, port,
 * from, fromDisplayName, replyTo, replyToDisplayName, envelopeFrom, ssl, starttls, auth, user,
 * password. Values may be strings (as Keycloak stores them) or JSON booleans/numbers. The password
 * is never logged or returned.
 */
const log = getLogger('idserver.services.email');

/** A realm's `smtpServer` map, or the body of a test request (unchecked: values are read leniently). */
export type SmtpSettings = SmtpServerRep;

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** The masked value GET realm shows for the SMTP password; sent back, it means "the stored one". */
export const MASKED_SECRET = '**********';

const on = (v: unknown) => v === true || String(v).toLowerCase() === 'true';
const text = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : String(v));

/** A realm's SMTP settings (an empty object when none are configured). */
export function smtpSettingsOf(realm: RealmModel): SmtpSettings {
  const s = realm.settings.smtpServer;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as SmtpSettings) : {};
}

function address(email: string, name?: string) {
  return name ? { name, address: email } : email;
}

/** Sends one message; throws an Error whose message is the mailer's (never containing the password). */
export async function sendMail(smtp: SmtpSettings, msg: MailMessage): Promise<void> {
  const from = text(smtp.from);
  if (!from) throw new Error(`Invalid sender address '${from ?? 'null'}'`);
  const host = text(smtp.host);
  if (!host) throw new Error('SMTP host is not configured');
  const ssl = on(smtp.ssl);
  const starttls = on(smtp.starttls);
  const port = Number(text(smtp.port) ?? (ssl ? 465 : 25));
  const auth = on(smtp.auth) ? { user: text(smtp.user) ?? '', pass: text(smtp.password) ?? '' } : undefined;
  // Loaded with the first mail: most processes never send one.
  const nodemailer = require('nodemailer') as typeof Nodemailer;
  const transport = nodemailer.createTransport({
    host,
    port,
    secure: ssl,
    requireTLS: starttls && !ssl,
    ignoreTLS: !starttls && !ssl,
    auth,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 10_000,
  });
  const replyTo = text(smtp.replyTo);
  const envelopeFrom = text(smtp.envelopeFrom);
  try {
    await transport.sendMail({
      from: address(from, text(smtp.fromDisplayName)),
      to: msg.to,
      replyTo: replyTo ? address(replyTo, text(smtp.replyToDisplayName)) : undefined,
      envelope: envelopeFrom ? { from: envelopeFrom, to: msg.to } : undefined,
      subject: msg.subject,
      text: msg.text,
      html: msg.html,
    });
    log.debug(`Mail "${msg.subject}" sent to ${msg.to} via ${host}:${port}`);
  } finally {
    transport.close();
  }
}

/** Formats a lifespan in seconds as Keycloak's mails do: `12 hours`, `5 minutes`, `1 day`. */
export function formatLifespan(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (seconds % 60 !== 0 || seconds === 0) return unit(seconds, 'second');
  const minutes = seconds / 60;
  if (minutes % 60 !== 0) return unit(minutes, 'minute');
  const hours = minutes / 60;
  if (hours % 24 !== 0) return unit(hours, 'hour');
  return unit(hours / 24, 'day');
}

/** Settings of a test request, with `**********` secrets replaced by the stored ones when the server matches. */
function testSettings(realm: RealmModel, body: SmtpSettings): SmtpSettings {
  const stored = smtpSettingsOf(realm);
  const out = { ...body };
  const same =
    on(out.auth) &&
    on(stored.auth) &&
    text(out.host) === text(stored.host) &&
    text(out.port) === text(stored.port) &&
    text(out.user) === text(stored.user);
  for (const key of ['password', 'authTokenClientSecret']) {
    if (out[key] === MASKED_SECRET) out[key] = same ? stored[key] : undefined;
  }
  return out;
}

/**
 * POST /admin/realms/{realm}/testSMTPConnection (manage-realm): sends a test message with the
 * given settings to the calling admin's e-mail; any failure → 500 `Failed to send email`.
 */
export async function testSmtpConnection(ctx: RequestContext, realm: RealmModel, body: unknown): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  // Keycloak reads a Map<String, String>: scalars become text, an object or array is its 400 (an
  // object whose own `toString` is no function made String() throw: a 500).
  const settings = testSettings(realm, validateRepresentation<SmtpSettings>('SmtpServerRepresentation', body));
  try {
    const caller = ctx.actor ? await ctx.db.models.User.findByPk(ctx.actor.userId, { attributes: ['email'] }) : null;
    if (!caller?.email) throw new Error('Logged in user does not have an e-mail.');
    await sendMail(settings, { to: caller.email, subject: '[KEYCLOAK] - SMTP test message', text: 'This is a test message' });
  } catch (e) {
    if (e instanceof HttpError) throw e;
    log.error(`Failed to send email: ${(e as Error).message}`);
    throw errorA(500, 'Failed to send email');
  }
}
