import type { HttpError } from '../../core/errors';
import { KNOWN_REALM_FIELDS, type RealmRepresentation, type RealmSettingsRep, SETTINGS_FIELDS } from '../../representations/realm';

/**
 * Picks the settings fields of a realm representation (POST /admin/realms and PUT /admin/realms/{realm});
 * unknown fields are rejected with `onUnknown`.
 */
export function settingsFrom(rep: RealmRepresentation, onUnknown: (field: string) => HttpError): RealmSettingsRep {
  const picked: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(rep)) {
    if (!KNOWN_REALM_FIELDS.has(k)) throw onUnknown(k);
    if (v === null || v === undefined) continue;
    if (SETTINGS_FIELDS.has(k)) picked.push([k, v]);
  }
  const out: RealmSettingsRep = Object.fromEntries(picked);
  if (rep.oAuth2DeviceCodeLifespan !== undefined && out.oauth2DeviceCodeLifespan === undefined)
    out.oauth2DeviceCodeLifespan = rep.oAuth2DeviceCodeLifespan;
  if (rep.oAuth2DevicePollingInterval !== undefined && out.oauth2DevicePollingInterval === undefined)
    out.oauth2DevicePollingInterval = rep.oAuth2DevicePollingInterval;
  return out;
}
