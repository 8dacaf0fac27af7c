import type { RealmModel } from '../../db/models/realm';
import { errorA } from '../../core/errors';
import type { ConfigPropertyRep } from '../../representations/config-property';

/**
 * The shapes and checks shared by the component provider factories (component-types.ts,
 * components-keys.ts, components-ldap.ts): the draft a factory validates, Keycloak's
 * ProviderConfigProperty and its ConfigurationValidationHelper messages.
 */
export const USER_STORAGE_TYPE = 'org.keycloak.storage.UserStorageProvider';
export const LDAP_MAPPER_TYPE = 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper';
export const REG_POLICY_TYPE = 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy';

/** A component as it is being created or updated: validation may change `config`. */
export interface ComponentDraft {
  id: string;
  realm: RealmModel;
  name: string;
  parentId: string;
  providerId: string;
  providerType: string;
  subType: string | null;
  config: Record<string, string[]>;
}

/** A child component a factory creates with its parent (LDAP default mappers). */
export type ChildComponent = Omit<ComponentDraft, 'id' | 'realm'>;

export interface ComponentFactory {
  id: string;
  helpText: string;
  properties: ConfigPropertyRep[];
  /** Properties common to every factory of the SPI (declared, but not listed as the factory's own). */
  common?: ConfigPropertyRep[];
  metadata?: Record<string, unknown>;
  /** `validateConfiguration`: throws a 400 with Keycloak's message; may add generated config. */
  validate?(draft: ComponentDraft): Promise<void> | void;
  /** `onCreate`: sub-components created with the component. */
  children?(draft: ComponentDraft): ChildComponent[];
}

/** Keycloak's ProviderConfigProperty as a ConfigPropertyRepresentation. */
export function prop(
  name: string,
  label: string,
  helpText: string,
  type: string,
  extra: Partial<Pick<ConfigPropertyRep, 'defaultValue' | 'options' | 'secret' | 'required'>> = {},
): ConfigPropertyRep {
  const { secret = false, required = false, ...rest } = extra;
  return { name, label, helpText, type, ...rest, secret, required, readOnly: false };
}

/** A ComponentValidationException: 400 `{"errorMessage": <message>}`. */
export const invalidConfig = (message: string) => errorA(400, message);

/** ConfigurationValidationHelper: the checks and messages Keycloak's providers use. */
export class ConfigCheck {
  constructor(private readonly config: Record<string, string[]>) {}

  private first(key: string): string | undefined {
    return this.config[key]?.[0];
  }

  single(p: ConfigPropertyRep, required = false): this {
    if ((this.config[p.name]?.length ?? 0) > 1) throw invalidConfig(`'${p.label}' should be a single entry`);
    if (required && this.config[p.name] === undefined) throw invalidConfig(`'${p.label}' is required`);
    return this;
  }

  long(p: ConfigPropertyRep, required = false): this {
    this.single(p, required);
    const v = this.first(p.name);
    if (v !== undefined && !/^[+-]?\d{1,18}$/.test(v)) throw invalidConfig(`'${p.label}' should be a number`);
    return this;
  }

  /** checkInt: a 32-bit integer, as Java's Integer.parseInt reads it. */
  int(p: ConfigPropertyRep, required = false): this {
    this.single(p, required);
    const v = this.first(p.name);
    if (required && v === undefined) throw invalidConfig(`'${p.label}' is required`);
    if (v !== undefined && (!/^[+-]?\d{1,10}$/.test(v) || Math.abs(Number(v)) > 2 ** 31 - (Number(v) < 0 ? 0 : 1))) {
      throw invalidConfig(`'${p.label}' should be a number`);
    }
    return this;
  }

  boolean(p: ConfigPropertyRep, required = false): this {
    this.single(p, required);
    const v = this.first(p.name);
    if (v !== undefined && v !== 'true' && v !== 'false') throw invalidConfig(`'${p.label}' should be 'true' or 'false'`);
    return this;
  }

  list(p: ConfigPropertyRep, required = false): this {
    this.single(p, required);
    const v = this.first(p.name);
    const options = p.options ?? [];
    if (v !== undefined && !options.includes(v)) {
      const text = options.map((o, i) => (i === 0 ? o : i === options.length - 1 ? ` or ${o}` : `, ${o}`)).join('');
      throw invalidConfig(`'${p.label}' should be ${text}`);
    }
    return this;
  }
}
