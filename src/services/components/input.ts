import type { ComponentModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { cannotParse, errorC } from '../../core/errors';
import { type ComponentRep, SECRET_MASK, toComponentRepresentation } from '../../representations/component';
import type { ComponentFactory } from './config';
import { componentFactory, declaredProperties } from './types';

/**
 * ComponentRepresentation in and out (config reference §6.2–6.3): request body checking with
 * Jackson's messages, config value normalisation, the read representation with the provider's
 * declared properties (src/representations/component.ts) and the masked copy recorded in admin events.
 */
export interface ComponentInput {
  id?: string | null;
  name?: string | null;
  parentId?: string | null;
  providerId?: string | null;
  providerType?: string | null;
  subType?: string | null;
  /** name → values; a single value is accepted for a one-element list. */
  config?: Record<string, Array<string | null> | null> | null;
}

const FIELDS = new Set(['id', 'name', 'parentId', 'providerId', 'providerType', 'subType', 'config']);

/** Line and column (1-based) just after a field name in the raw JSON text, as Jackson reports it. */
function locate(raw: string, field: string): string {
  const idx = raw.indexOf(`"${field}"`);
  if (idx < 0) return 'line 1 column 1';
  const lines = raw.slice(0, idx + field.length + 2).split('\n');
  return `line ${lines.length} column ${lines[lines.length - 1].length + 1}`;
}

const scalar = (v: unknown): string | null => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object') throw cannotParse('mapping');
  return String(v);
};

/** Checks a parsed body against ComponentRepresentation; unknown fields and wrong types → 400 as Keycloak. */
export function parseComponentInput(body: unknown, raw = ''): ComponentInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
  const input = body as Record<string, unknown>;
  for (const k of Object.keys(input)) {
    if (!FIELDS.has(k)) {
      throw errorC(400, `Invalid json representation for ComponentRepresentation. Unrecognized field "${k}" at ${locate(raw, k)}.`);
    }
  }
  const out: ComponentInput = {};
  for (const k of ['id', 'name', 'parentId', 'providerId', 'providerType', 'subType'] as const) {
    if (k in input) out[k] = scalar(input[k]);
  }
  const config = input.config;
  if (config !== undefined && config !== null) {
    if (typeof config !== 'object' || Array.isArray(config)) throw cannotParse('mapping');
    out.config = {};
    for (const [k, v] of Object.entries(config as Record<string, unknown>)) {
      out.config[k] = v === null ? null : Array.isArray(v) ? v.map(scalar) : [scalar(v)];
    }
  } else if (config === null) out.config = null;
  return out;
}

const blank = (v: string | null) => v === null || v.trim() === '';

/** Create: every key kept, null/blank values dropped, keys left empty dropped. */
export function createConfig(config: ComponentInput['config']): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, values] of Object.entries(config ?? {})) {
    const kept = (values ?? []).filter((v): v is string => !blank(v));
    if (kept.length) out[k] = kept;
  }
  return out;
}

/**
 * Update: only keys the provider declares; empty list or blank first value removes the key; the
 * mask and blank values are skipped (the stored value stays); keys absent from the body are kept.
 */
export function mergeConfig(
  factory: ComponentFactory,
  stored: Record<string, string[]>,
  config: ComponentInput['config'],
): Record<string, string[]> {
  const out = { ...stored };
  const declared = declaredProperties(factory);
  for (const [k, values] of Object.entries(config ?? {})) {
    if (!declared.has(k)) continue;
    if (!values?.length || blank(values[0])) {
      delete out[k];
      continue;
    }
    const kept = values.filter((v): v is string => !blank(v) && v !== SECRET_MASK);
    if (kept.length) out[k] = kept;
  }
  return out;
}

/** Realm id for `parentId`: absent → the realm; the realm's name is accepted for its id (Keycloak's master id is "master"). */
export function parentIdOf(realm: RealmModel, parentId: string | null | undefined): string {
  if (!parentId || parentId === realm.name) return realm.id;
  return parentId;
}

/** ComponentRepresentation of a stored component with its provider's declared properties (unknown provider → without config). */
export function componentRepresentation(c: ComponentModel): ComponentRep {
  const factory = componentFactory(c.providerType, c.providerId);
  return toComponentRepresentation(c, factory && declaredProperties(factory));
}

/** Config keys whose values are secrets though no provider declares them (generated key material). */
const INTERNAL_SECRETS = /^(privateKey|secret|ecdsaPrivateKey|ecdhPrivateKey|eddsaPrivateKey|keystorePassword|keyPassword|bindCredential)$/;

/** The request body as an admin event may record it: secret config values masked. */
export function eventRepresentation(
  input: ComponentInput,
  factory = componentFactory(input.providerType, input.providerId),
): ComponentInput {
  const declared = factory ? declaredProperties(factory) : new Map();
  const config = input.config
    ? Object.fromEntries(
        Object.entries(input.config).map(([k, v]) => [
          k,
          declared.get(k)?.secret || INTERNAL_SECRETS.test(k) ? (v ?? []).map(() => SECRET_MASK) : v,
        ]),
      )
    : input.config;
  return { ...input, ...(config !== undefined ? { config } : {}) };
}
