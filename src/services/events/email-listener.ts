import type { EventListenerConfig } from '../../config/event-listener-options';
import type { EventListener, ListenedUserEvent } from '../../core/event-listeners';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { EVENT_TYPES } from '../../keycloak/event-types';
import { getLogger } from '../../logging';
import { sendMail, smtpSettingsOf } from './email';

/**
 * The `email` event listener (Keycloak's EmailEventListenerProvider): for the user events of its set
 * (LOGIN_ERROR, UPDATE_PASSWORD, REMOVE_TOTP, UPDATE_TOTP, UPDATE_CREDENTIAL, REMOVE_CREDENTIAL by
 * default; the include/exclude options change it) it mails the user the event is about, when that
 * user has an e-mail address and it is verified, through the realm's SMTP settings. Admin events send
 * nothing (an admin's `reset-password` is an admin event, not the user's UPDATE_PASSWORD).
 *
 * The mail goes out after the request: nothing here is awaited by the caller, so a slow or dead mail
 * server neither delays nor fails a request; a failure is logged (without the SMTP password).
 * Texts are under message keys in the manner of Keycloak's (`eventLoginErrorSubject`, ...), so a
 * realm's localization texts for the user's locale (or the realm's default) replace them.
 */
const log = getLogger('idserver.services.events.email-listener');

export const EMAIL_DEFAULT_EVENTS = [
  'LOGIN_ERROR',
  'UPDATE_PASSWORD',
  'REMOVE_TOTP',
  'UPDATE_TOTP',
  'UPDATE_CREDENTIAL',
  'REMOVE_CREDENTIAL',
];

/** Subject and body ({0} the time, {1} the IP address, {2} the credential type) of each event a mail is written for. */
export const EVENT_MAIL_TEXTS: Record<string, string> = {
  eventLoginErrorSubject: 'Failed sign-in to your account',
  eventLoginErrorBody:
    'Someone tried to sign in to your account on {0} from {1} and did not succeed. If it was not you, tell your administrator.',
  eventUpdatePasswordSubject: 'Your password was changed',
  eventUpdatePasswordBody: 'The password of your account was changed on {0} from {1}. If you did not do it, tell your administrator.',
  eventRemoveTotpSubject: 'One-time code (OTP) removed',
  eventRemoveTotpBody:
    'The one-time code generator (OTP) of your account was removed on {0} from {1}. If you did not do it, tell your administrator.',
  eventUpdateTotpSubject: 'One-time code (OTP) set up',
  eventUpdateTotpBody:
    'A one-time code generator (OTP) was set up for your account on {0} from {1}. If you did not do it, tell your administrator.',
  eventUpdateCredentialSubject: 'A way to sign in was changed',
  eventUpdateCredentialBody:
    'The credential "{2}" of your account was changed on {0} from {1}. If you did not do it, tell your administrator.',
  eventRemoveCredentialSubject: 'A way to sign in was removed',
  eventRemoveCredentialBody:
    'The credential "{2}" of your account was removed on {0} from {1}. If you did not do it, tell your administrator.',
  eventUserDisabledByTemporaryLockoutSubject: 'Your account is locked for a while',
  eventUserDisabledByTemporaryLockoutBody:
    'Too many failed sign-ins locked your account on {0} for a while. If they were not yours, tell your administrator.',
  eventUserDisabledByPermanentLockoutSubject: 'Your account is locked',
  eventUserDisabledByPermanentLockoutBody:
    'Too many failed sign-ins locked your account on {0} until an administrator unlocks it. If they were not yours, tell your administrator.',
};

/** LOGIN_ERROR → eventLoginError. */
const keyOf = (type: string) =>
  `event${type
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}`;

/** The event types that send a mail under these options; an unknown type name is an Error naming the option. */
export function emailEventTypes(cfg: EventListenerConfig['email']): Set<string> {
  const known = new Set<string>(EVENT_TYPES);
  const check = (option: string, names: string[]) => {
    for (const n of names) if (!known.has(n)) throw new Error(`Invalid value for option '--${option}': unknown event type ${n}`);
  };
  check('spi-events-listener-email-include-events', cfg.includeEvents ?? []);
  check('spi-events-listener-email-exclude-events', cfg.excludeEvents);
  const out = new Set(cfg.includeEvents ?? EMAIL_DEFAULT_EVENTS);
  for (const e of cfg.excludeEvents) out.delete(e);
  return out;
}

const flag = (v: unknown) => v === true || v === 'true';
const fill = (template: string, params: string[]) => template.replace(/\{(\d+)\}/g, (m, i) => params[Number(i)] ?? m);

/** The texts for a user: the realm's localization texts of the user's (or the realm's default) locale over the built-in ones. */
async function textsFor(db: Db, realm: RealmModel, userId: string): Promise<Record<string, string>> {
  if (!flag(realm.settings.internationalizationEnabled)) return EVENT_MAIL_TEXTS;
  const attr = await db.models.UserAttribute.findOne({ where: { userId, name: 'locale' }, attributes: ['value'] });
  const dflt = typeof realm.settings.defaultLocale === 'string' && realm.settings.defaultLocale ? realm.settings.defaultLocale : 'en';
  const locale = attr?.value || dflt;
  const rows = await db.models.RealmLocalization.findAll({ where: { realmId: realm.id, locale }, attributes: ['key', 'value'] });
  const out = { ...EVENT_MAIL_TEXTS };
  for (const r of rows) out[r.key] = r.value;
  return out;
}

/** Writes and sends the mail of one event; resolves false when the user gets none. Throws what the mailer throws. */
export async function sendEventMail(db: Db, realm: RealmModel, e: ListenedUserEvent): Promise<boolean> {
  const key = keyOf(e.type);
  if (!e.userId || !EVENT_MAIL_TEXTS[`${key}Subject`]) return false;
  const user = await db.models.User.findOne({ where: { id: e.userId, realmId: realm.id }, attributes: ['id', 'email', 'emailVerified'] });
  if (!user?.email || !user.emailVerified) return false;
  const texts = await textsFor(db, realm, user.id);
  const params = [new Date(e.time).toUTCString(), e.ipAddress ?? 'an unknown address', e.details.credential_type ?? ''];
  await sendMail(smtpSettingsOf(realm), {
    to: user.email,
    subject: fill(texts[`${key}Subject`], params),
    text: `${fill(texts[`${key}Body`], params)}\n`,
  });
  return true;
}

export function emailListener(cfg: EventListenerConfig['email']): EventListener {
  const types = emailEventTypes(cfg);
  return {
    onEvent(db, realm, e) {
      if (!types.has(e.type) || !e.userId) return;
      // Not awaited: the request that recorded the event has its answer already.
      db.background(() =>
        sendEventMail(db, realm, e).catch((err: unknown) => {
          log.error(`Failed to send the ${e.type} event mail of user ${e.userId}: ${(err as Error).message}`);
        }),
      );
    },
  };
}
