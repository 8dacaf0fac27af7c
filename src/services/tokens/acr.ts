import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';

/**
 * The acr side of the level of authentication (ADR 28 "Level of authentication"; the login's part is
 * src/services/login/loa.ts): Keycloak's AcrUtils (acr values of a request, `acr.loa.map` of the
 * client or else the realm, the client's `default.acr.values` and `minimum.acr.value`) and
 * AcrProtocolMapper (the `acr` claim from the level a client's login reached).
 */

export const NO_LOA = -1;
export const MINIMUM_LOA = 0;

export type Params = Record<string, string | undefined>;

const attribute = (settings: Record<string, unknown>, name: string): string | undefined => {
  const v = (settings.attributes as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

export function parseMap(raw: string | undefined): Record<string, number> {
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(parsed)) if (Number.isInteger(Number(v))) out[k] = Number(v);
    return out;
  } catch {
    return {};
  }
}

/** AcrUtils.getAcrLoaMap: the client's `acr.loa.map`, else the realm's. */
export function acrLoaMap(realm: RealmModel, client: ClientModel): Record<string, number> {
  const own = parseMap(attribute(client.settings, 'acr.loa.map'));
  return Object.keys(own).length ? own : parseMap(attribute(realm.settings, 'acr.loa.map'));
}

export const integer = (s: string): number | undefined => (/^-?\d{1,9}$/.test(s) ? Number(s) : undefined);

/** The acr values of `acr_values` and of `claims` → id_token → acr (only the essential claim's, when `essential`). */
export function acrValuesOf(params: Params, essential: boolean): string[] {
  const out = !essential && params.acr_values ? params.acr_values.split(' ').filter(Boolean) : [];
  if (params.claims) {
    try {
      const acr = (JSON.parse(params.claims) as { id_token?: { acr?: { essential?: unknown; value?: unknown; values?: unknown } } })
        ?.id_token?.acr;
      if (acr && (!essential || acr.essential === true)) {
        if (Array.isArray(acr.values)) out.push(...acr.values.map(String));
        else if (typeof acr.value === 'string') out.push(acr.value);
      }
    } catch {
      // Keycloak: an invalid claims parameter is ignored here.
    }
  }
  return out;
}

/** AcrUtils.enforceMinimumAcr: values under the client's `minimum.acr.value` go; none left, the minimum. */
export function enforceMinimum(values: string[], client: ClientModel, map: Record<string, number>): string[] {
  const minimum = attribute(client.settings, 'minimum.acr.value');
  if (!minimum) return values;
  const levelOf = (acr: string) => map[acr] ?? integer(acr);
  const min = levelOf(minimum);
  if (min === undefined) return values;
  const kept = values.filter((v) => {
    const l = levelOf(v);
    return l !== undefined && l >= min;
  });
  return kept.length ? kept : [minimum];
}

/** AcrUtils.getAcrValues with the client: the request's values, else the client's `default.acr.values`, then the minimum. */
export function requestedAcrValues(params: Params, client: ClientModel, map: Record<string, number>): string[] {
  let values = acrValuesOf(params, false);
  if (!values.length) values = (attribute(client.settings, 'default.acr.values') ?? '').split('##').filter(Boolean);
  return enforceMinimum(values, client, map);
}

/** AcrUtils.mapLoaToAcr: the value of the highest level not above `loa`. */
function mapLoaToAcr(loa: number, map: Record<string, number>, values: string[]): string | undefined {
  if (!Object.keys(map).length || !values.length) return undefined;
  let acr: string | undefined;
  let max = -1;
  for (const v of values) {
    const l = map[v] ?? integer(v);
    if (l !== undefined && l > max && loa >= l) {
      acr = v;
      max = l;
    }
  }
  return acr;
}

/**
 * The `acr` claim (Keycloak's AcrProtocolMapper): the level this client's login reached (without a
 * level, "1", or "0" when the login was the SSO session's), named by the essential acr values, else
 * the requested ones, else any name of acr.loa.map, else the number.
 */
export function acrClaim(realm: RealmModel, client: ClientModel, notes: Record<string, string> | undefined): string {
  let note: { l?: number; s?: 1; claims?: string; acr?: string } = {};
  try {
    note = JSON.parse(notes?.[`loa:${client.id}`] ?? '{}');
  } catch {
    note = {};
  }
  let loa = typeof note.l === 'number' ? note.l : NO_LOA;
  if (loa < MINIMUM_LOA) loa = note.s ? 0 : 1;
  const map = acrLoaMap(realm, client);
  const params: Params = { claims: note.claims, acr_values: note.acr };
  return (
    mapLoaToAcr(loa, map, acrValuesOf(params, true)) ??
    mapLoaToAcr(loa, map, requestedAcrValues(params, client, map)) ??
    mapLoaToAcr(loa, map, Object.keys(map)) ??
    String(loa)
  );
}
