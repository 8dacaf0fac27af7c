import { type HttpError, badRequest } from '../../core/errors';
import { type RealmRepresentation, type RealmSettingsRep, SETTINGS_FIELDS } from '../../representations/realm';
import { type RepresentationProblem, readRepresentation } from '../../representations/schema';

/**
 * Reads a realm representation as Keycloak's Jackson does (POST /admin/realms and PUT
 * /admin/realms/{realm}): every field checked against the RealmRepresentation table, values coerced in
 * place where Jackson coerces ("60" → 60, "true" → true); an unknown field or a value of the wrong type
 * is `onProblem`'s error, before anything is stored.
 */
export function readRealmRepresentation(rep: RealmRepresentation, onProblem: (problem: RepresentationProblem) => HttpError): void {
  const problem = readRepresentation('RealmRepresentation', rep as Record<string, unknown>);
  if (problem) throw onProblem(problem);
}

/**
 * Picks the settings fields of a realm representation (POST /admin/realms and PUT /admin/realms/{realm})
 * after reading it with readRealmRepresentation: unknown fields and wrong types are `onProblem`'s error.
 */
export function settingsFrom(rep: RealmRepresentation, onProblem: (problem: RepresentationProblem) => HttpError): RealmSettingsRep {
  readRealmRepresentation(rep, onProblem);
  const picked: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(rep)) {
    if (v === null || v === undefined) continue;
    if (SETTINGS_FIELDS.has(k)) picked.push([k, v]);
  }
  const out: RealmSettingsRep = Object.fromEntries(picked);
  if (out.sslRequired !== undefined) out.sslRequired = sslRequired(out.sslRequired);
  if (rep.oAuth2DeviceCodeLifespan != null && out.oauth2DeviceCodeLifespan === undefined)
    out.oauth2DeviceCodeLifespan = rep.oAuth2DeviceCodeLifespan;
  if (rep.oAuth2DevicePollingInterval != null && out.oauth2DevicePollingInterval === undefined)
    out.oauth2DevicePollingInterval = rep.oAuth2DevicePollingInterval;
  return out;
}

/** Keycloak's SslRequired values, as its representation spells them. */
export const SSL_REQUIRED = ['all', 'external', 'none'] as const;

/**
 * Keycloak reads `sslRequired` with `SslRequired.valueOf(value.toUpperCase())` and writes it in lower
 * case: any casing of a known value is that value; anything else is refused before it is stored.
 */
function sslRequired(value: unknown): string {
  const v = String(value).toLowerCase();
  if (!(SSL_REQUIRED as readonly string[]).includes(v)) {
    throw badRequest(`Invalid value for sslRequired: must be one of ${SSL_REQUIRED.join(', ')}`);
  }
  return v;
}
