import { randomUUID } from 'node:crypto';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorC } from '../../core/errors';
import { write } from '../../core/db-errors';
import { type AuthenticatorConfigRep, toConfigRepresentation } from '../../representations/authentication';
import { type Rep, authEvent, executionById, requireAuthRight, stringMap } from './common';
import { checkReservedChars } from '../../core/reserved-chars';
import {
  AUTHENTICATORS,
  type AuthenticatorProvider,
  CLIENT_AUTHENTICATORS,
  FORM_ACTIONS,
  FORM_PROVIDERS,
  findConfigurableProvider,
} from '../../keycloak/authenticator-providers';
import type { RequestContext } from '../../core/context';

/**
 * Authenticator configs and provider descriptions (config reference §9.6, §9.7): an execution's
 * config (create, read, update, delete), config descriptions, and the provider lists.
 */
/** An AuthenticatorConfigRepresentation as the config endpoints take it. */
export type ConfigInput = AuthenticatorConfigRep;

/** Config property names whose values are secrets (masked in admin events). */
const SECRET_NAMES = new Set([...AUTHENTICATORS, ...FORM_ACTIONS].flatMap((p) => p.properties.filter((x) => x.secret).map((x) => x.name)));

/** The config map as stored: strings, empty values dropped (Keycloak's removeEmptyString). */
function configMap(input: ConfigInput['config']): Record<string, string> {
  const out = stringMap(input);
  for (const [k, v] of Object.entries(out)) if (v === '') delete out[k];
  return out;
}

const masked = (rep: ConfigInput, id: string): Rep => ({
  ...rep,
  id,
  config: Object.fromEntries(Object.entries(configMap(rep.config)).map(([k, v]) => [k, SECRET_NAMES.has(k) ? '**********' : v])),
});

const exists = (alias: string) => errorA(409, `Authentication execution configuration ${alias} already exists`);

/** POST /{realm}/authentication/executions/{id}/config: creates and links a config (replacing the previous one). Returns its id. */
export async function createExecutionConfig(
  ctx: RequestContext,
  realm: RealmModel,
  executionId: string,
  rep: ConfigInput,
): Promise<string> {
  await requireAuthRight(ctx, realm, 'manage');
  checkReservedChars(rep.alias);
  // The execution is resolved here, not by the fronts: the alias's reserved characters are checked before its 404.
  const exe = await executionById(ctx, realm, executionId);
  const alias = rep.alias;
  if (typeof alias !== 'string' || !alias)
    throw errorA(409, 'Failed to create authentication execution configuration with empty alias name');
  const m = ctx.db.models;
  if (await m.AuthenticatorConfig.findOne({ where: { realmId: realm.id, alias } })) throw exists(alias);
  const id = randomUUID();
  const previous = exe.configId;
  try {
    await write(ctx, { unique: () => exists(alias) }, async () => {
      await m.AuthenticatorConfig.create({ id, realmId: realm.id, alias, config: configMap(rep.config) });
      exe.configId = id;
      await exe.save();
      if (previous) await m.AuthenticatorConfig.destroy({ where: { id: previous, realmId: realm.id } });
      await authEvent(ctx, realm, 'CREATE', 'AUTH_EXECUTION', `executions/${executionId}/config`, masked(rep, id));
    });
  } catch (e) {
    await exe.reload().catch(() => undefined);
    throw e;
  }
  return id;
}

async function configById(ctx: RequestContext, realm: RealmModel, id: string) {
  const config = await ctx.db.models.AuthenticatorConfig.findByPk(id);
  if (!config || config.realmId !== realm.id) throw errorC(404, 'Could not find authenticator config');
  return config;
}

/** GET /{realm}/authentication/config/{id}: `{id, alias, config}`. */
export async function getAuthenticatorConfig(ctx: RequestContext, realm: RealmModel, id: string): Promise<AuthenticatorConfigRep> {
  await requireAuthRight(ctx, realm, 'view');
  return toConfigRepresentation(await configById(ctx, realm, id));
}

/** PUT /{realm}/authentication/config/{id}: sets the alias and replaces the config map. */
export async function updateAuthenticatorConfig(ctx: RequestContext, realm: RealmModel, id: string, rep: ConfigInput): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  checkReservedChars(rep.alias);
  const config = await configById(ctx, realm, id);
  const alias = typeof rep.alias === 'string' ? rep.alias : null;
  await write(ctx, { unique: () => exists(String(alias)) }, async () => {
    config.alias = alias;
    config.config = configMap(rep.config);
    await config.save();
    await authEvent(ctx, realm, 'UPDATE', 'AUTHENTICATOR_CONFIG', `config/${id}`, masked(rep, id));
  });
}

/** DELETE /{realm}/authentication/config/{id}: unlinks it from every execution and deletes it. */
export async function deleteAuthenticatorConfig(ctx: RequestContext, realm: RealmModel, id: string): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  await configById(ctx, realm, id);
  await ctx.db.transaction(async () => {
    const m = ctx.db.models;
    await m.AuthExecution.update({ configId: null }, { where: { realmId: realm.id, configId: id } });
    await m.AuthenticatorConfig.destroy({ where: { id } });
    await authEvent(ctx, realm, 'DELETE', 'AUTHENTICATOR_CONFIG', `config/${id}`);
  });
}

/** RFC 4648 Base32 decoding (Keycloak accepts Base32-encoded provider ids here); '' when invalid. */
function base32Decode(s: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const ch of s.replace(/=+$/, '').toUpperCase()) {
    const i = alphabet.indexOf(ch);
    if (i < 0) return '';
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** GET /{realm}/authentication/config-description/{providerId}: name, help text and config properties. */
export async function getConfigDescription(ctx: RequestContext, realm: RealmModel, providerId: string): Promise<Rep> {
  await requireAuthRight(ctx, realm, 'view');
  let id = providerId;
  let provider = findConfigurableProvider(id);
  if (!provider) {
    id = base32Decode(providerId);
    provider = id ? findConfigurableProvider(id) : undefined;
  }
  if (!provider) throw errorC(404, 'Could not find authenticator provider');
  return { providerId: id, name: provider.displayName, helpText: provider.description, properties: provider.properties };
}

/** GET /{realm}/authentication/per-client-config-description: client authenticator id → per-client properties. */
export async function getPerClientConfigDescription(ctx: RequestContext, realm: RealmModel): Promise<Rep> {
  await requireAuthRight(ctx, realm, 'viewClientAuthenticators');
  return Object.fromEntries(CLIENT_AUTHENTICATORS.map((p) => [p.id, []]));
}

export type ProviderList = 'authenticator' | 'client-authenticator' | 'form' | 'form-action';

const LISTS: Record<ProviderList, AuthenticatorProvider[]> = {
  authenticator: AUTHENTICATORS,
  'client-authenticator': CLIENT_AUTHENTICATORS,
  form: FORM_PROVIDERS,
  'form-action': FORM_ACTIONS,
};

/** GET /{realm}/authentication/{authenticator|client-authenticator|form|form-action}-providers. */
export async function listProviders(ctx: RequestContext, realm: RealmModel, list: ProviderList): Promise<Rep[]> {
  await requireAuthRight(ctx, realm, list === 'client-authenticator' ? 'viewClientAuthenticators' : 'view');
  return LISTS[list].map((p) => ({
    id: p.id,
    displayName: p.displayName,
    description: p.description,
    ...(p.supportsSecret !== undefined ? { supportsSecret: p.supportsSecret } : {}),
  }));
}
