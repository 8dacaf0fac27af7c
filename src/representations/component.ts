import type { ComponentModel } from '../db/models/component';
import type { ConfigPropertyRep } from './config-property';
import type { Representation } from './schema';

/**
 * Keycloak's ComponentRepresentation as a read shows it (`StripSecretsUtils.stripComponent`): the
 * config keys the provider declares, secrets masked (vault references kept); a provider the server
 * does not know → no config at all.
 */
export type ComponentRep = Representation<'ComponentRepresentation'>;

export const SECRET_MASK = '**********';

/** The config as a read shows it: declared secrets masked (vault references kept), undeclared keys removed. */
export function maskedConfig(declared: Map<string, ConfigPropertyRep>, config: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, values] of Object.entries(config ?? {})) {
    const p = declared.get(k);
    if (!p) continue;
    out[k] = p.secret
      ? values.length
        ? values.map((v) => (/^\$\{vault\.[^}]+\}$/.test(v) ? v : SECRET_MASK))
        : [SECRET_MASK]
      : [...values];
  }
  return out;
}

/** ComponentRepresentation of a stored component, given the config properties its provider declares (undefined: unknown provider). */
export function toComponentRepresentation(c: ComponentModel, declared: Map<string, ConfigPropertyRep> | undefined): ComponentRep {
  const rep: ComponentRep = {
    id: c.id,
    name: c.name,
    providerId: c.providerId,
    providerType: c.providerType,
    parentId: c.parentId,
  };
  if (c.subType !== null && c.subType !== undefined) rep.subType = c.subType;
  if (declared) rep.config = maskedConfig(declared, c.config ?? {});
  return rep;
}
