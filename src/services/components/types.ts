import { KEY_PROVIDER_TYPE } from '../../auth/keys';
import type { RequestContext } from '../../core/context';
import type { RealmModel } from '../../db/models/realm';
import type { ComponentTypeRep } from '../../representations/component-type';
import type { ConfigPropertyRep } from '../../representations/config-property';
import { registrationPolicyTypes } from '../clients/client-registration-policy';
import { UP_CONFIG_KEY, UP_PROVIDER_ID, UP_PROVIDER_TYPE } from '../users/user-profile';
import { type ComponentFactory, ConfigCheck, invalidConfig, LDAP_MAPPER_TYPE, prop, REG_POLICY_TYPE, USER_STORAGE_TYPE } from './config';
import { KEY_PROVIDER_FACTORIES } from './key-providers';
import { LDAP_MAPPER_FACTORIES, USER_STORAGE_FACTORIES } from './ldap';

/**
 * The component provider catalogue (config reference §6.4): for each SPI (`providerType`, the Java
 * interface name) the provider factories the server knows, with their config properties (which
 * drive secret masking on read and the keys an update may change), their validation (which may
 * add generated key material to the config) and the sub-components they create.
 */

const UP_FACTORY: ComponentFactory = {
  id: UP_PROVIDER_ID,
  helpText: '',
  properties: [prop(UP_CONFIG_KEY, UP_CONFIG_KEY, '', 'String')],
  validate(draft) {
    const raw = draft.config[UP_CONFIG_KEY]?.join('');
    if (raw === undefined) return;
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    } catch {
      throw invalidConfig('Invalid user profile configuration');
    }
  },
};

/** `validateConfiguration` of the registration policies that have one (max-clients, trusted-hosts), as Keycloak's factories. */
function regPolicyValidator(t: ComponentTypeRep): ComponentFactory['validate'] {
  const p = (name: string) => t.properties.find((x) => x.name === name) as ConfigPropertyRep;
  if (t.id === 'max-clients') return (d) => void new ConfigCheck(d.config).int(p('max-clients'), true);
  if (t.id !== 'trusted-hosts') return undefined;
  return (d) => {
    const [host, uris] = ['host-sending-registration-request-must-match', 'client-uris-must-match'];
    new ConfigCheck(d.config).boolean(p(host), true).boolean(p(uris), true);
    if (d.config[host]?.[0] !== 'true' && d.config[uris]?.[0] !== 'true') {
      throw invalidConfig('At least one of hosts verification or client URIs validation must be enabled');
    }
  };
}

/** Registration policy factories (static option lists: the realm's scope names are filled where listed). */
const REG_POLICY_FACTORIES: ComponentFactory[] = registrationPolicyTypes([]).map((t) => {
  const validate = regPolicyValidator(t);
  return validate ? { ...t, validate } : { ...t };
});

const CATALOGUE: Record<string, ComponentFactory[]> = {
  [KEY_PROVIDER_TYPE]: KEY_PROVIDER_FACTORIES,
  [USER_STORAGE_TYPE]: USER_STORAGE_FACTORIES,
  [LDAP_MAPPER_TYPE]: LDAP_MAPPER_FACTORIES,
  [REG_POLICY_TYPE]: REG_POLICY_FACTORIES,
  [UP_PROVIDER_TYPE]: [UP_FACTORY],
};

/** The factories of an SPI; own keys only, so `valueOf` or `__proto__` is no SPI (it was a 500). */
const factoriesOf = (providerType: string): ComponentFactory[] | undefined =>
  Object.hasOwn(CATALOGUE, providerType) ? CATALOGUE[providerType] : undefined;

/** The factory of a provider, or undefined (→ 400 `Invalid provider type or no such provider`). */
export function componentFactory(
  providerType: string | null | undefined,
  providerId: string | null | undefined,
): ComponentFactory | undefined {
  if (!providerType || !providerId) return undefined;
  return factoriesOf(providerType)?.find((f) => f.id === providerId);
}

/** Config keys the provider declares (its own and the SPI's common properties) with their secret flag. */
export function declaredProperties(f: ComponentFactory): Map<string, ConfigPropertyRep> {
  return new Map([...(f.common ?? []), ...f.properties].map((p) => [p.name, p]));
}

const asTypeRep = (f: ComponentFactory): ComponentTypeRep => ({
  id: f.id,
  helpText: f.helpText,
  properties: f.properties,
  metadata: f.metadata ?? {},
});

/** ComponentTypeRepresentations of an SPI for a realm (`sub-component-types`); unknown SPI → []. */
export async function componentTypesOf(ctx: RequestContext, realm: RealmModel, providerType: string): Promise<ComponentTypeRep[]> {
  if (providerType === REG_POLICY_TYPE) {
    const scopes = await ctx.db.models.ClientScope.findAll({
      where: { realmId: realm.id },
      attributes: ['name'],
      order: [['name', 'ASC']],
    });
    return registrationPolicyTypes(scopes.map((s) => s.name));
  }
  return (factoriesOf(providerType) ?? []).map(asTypeRep);
}

/** serverinfo `componentTypes`: every SPI of the catalogue → its provider types. */
export function allComponentTypes(): Record<string, ComponentTypeRep[]> {
  return Object.fromEntries(Object.entries(CATALOGUE).map(([spi, list]) => [spi, list.map(asTypeRep)]));
}
