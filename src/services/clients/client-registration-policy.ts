import { requireCap } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import type { RealmModel } from '../../db/models/realm';
import type { ComponentTypeRep } from '../../representations/component-type';
import type { ConfigPropertyRep } from '../../representations/config-property';

/**
 * Client registration policy providers — `GET /client-registration-policy/providers` (config
 * reference §10.2): Keycloak's ClientRegistrationPolicy factories as ComponentTypeRepresentations,
 * with their config properties filled for the realm (the protocol-mapper type ids, the realm's
 * client-scope names). The policy instances themselves are components (§6.5).
 */

/** Protocol-mapper type ids of the server (default features), the options of `allowed-protocol-mapper-types`. */
export const PROTOCOL_MAPPER_TYPE_IDS = [
  'oidc-acr-mapper',
  'oidc-address-mapper',
  'oidc-allowed-origins-mapper',
  'oidc-amr-mapper',
  'oidc-audience-mapper',
  'oidc-audience-resolve-mapper',
  'oidc-claims-param-token-mapper',
  'oidc-claims-param-value-idtoken-mapper',
  'oidc-full-name-mapper',
  'oidc-group-membership-mapper',
  'oidc-hardcoded-claim-mapper',
  'oidc-hardcoded-role-mapper',
  'oidc-nonce-backwards-compatible-mapper',
  'oidc-organization-membership-mapper',
  'oidc-role-name-mapper',
  'oidc-session-state-mapper',
  'oidc-sha256-pairwise-sub-mapper',
  'oidc-sub-mapper',
  'oidc-usermodel-attribute-mapper',
  'oidc-usermodel-client-role-mapper',
  'oidc-usermodel-property-mapper',
  'oidc-usermodel-realm-role-mapper',
  'oidc-usersessionmodel-note-mapper',
  'saml-audience-mapper',
  'saml-audience-resolve-mapper',
  'saml-group-membership-mapper',
  'saml-hardcode-attribute-mapper',
  'saml-hardcode-role-mapper',
  'saml-organization-membership-mapper',
  'saml-role-list-mapper',
  'saml-role-name-mapper',
  'saml-user-attribute-mapper',
  'saml-user-attribute-nameid-mapper',
  'saml-user-property-mapper',
  'saml-user-session-note-mapper',
];

const prop = (name: string, label: string, helpText: string, type: string, extra: Partial<ConfigPropertyRep> = {}): ConfigPropertyRep => ({
  name,
  label,
  helpText,
  type,
  ...extra,
  secret: false,
  required: false,
  readOnly: false,
});

const provider = (id: string, helpText: string, properties: ConfigPropertyRep[] = []): ComponentTypeRep => ({
  id,
  helpText,
  properties,
  metadata: {},
});

/** The registration policy providers with their config properties for this realm, ordered by id (view-realm, as Keycloak). */
export async function clientRegistrationPolicyProviders(ctx: RequestContext, realm: RealmModel): Promise<ComponentTypeRep[]> {
  await requireCap(ctx, realm, 'viewRealm');
  const scopes = await ctx.db.models.ClientScope.findAll({ where: { realmId: realm.id }, attributes: ['name'], order: [['name', 'ASC']] });
  return registrationPolicyTypes(scopes.map((s) => s.name));
}

/** The registration policy factories with `allowed-client-scopes` options = the given scope names (components, serverinfo). */
export function registrationPolicyTypes(scopeNames: string[]): ComponentTypeRep[] {
  return [
    provider(
      'allowed-client-templates',
      'When present, it allows to specify whitelist of client scopes, which will be allowed in representation of registered (or updated) client',
      [
        prop(
          'allowed-client-scopes',
          'Allowed Client Scopes',
          "Whitelist of the client scopes, which can be used on a newly registered client. Attempt to register client with some client scope, which is not whitelisted, will be rejected. By default, the whitelist is either empty or contains just realm default client scopes (based on 'Allow Default Scopes' configuration property)",
          'MultivaluedList',
          { options: [...scopeNames] },
        ),
        prop(
          'allow-default-scopes',
          'Allow Default Scopes',
          'If on, then newly registered clients will be allowed to have client scopes mentioned in realm default client scopes or realm optional client scopes',
          'boolean',
          { defaultValue: true },
        ),
      ],
    ),
    provider('allowed-protocol-mappers', 'Whitelist of protocol mapper providers, which can be used by newly registered client', [
      prop(
        'allowed-protocol-mapper-types',
        'Allowed Protocol Mapper Types',
        'Whitelisted protocol mapper providers. Attempt to register client with protocol mapper of a type, which is not whitelisted, will be rejected',
        'MultivaluedList',
        { options: [...PROTOCOL_MAPPER_TYPE_IDS] },
      ),
    ]),
    provider('client-disabled', 'When present, then newly registered client will be disabled and admin needs to manually enable them'),
    provider('consent-required', "When present, then newly registered client will always have 'consentRequired' switched on"),
    provider('max-clients', 'It will be allowed to register just specified count of clients in realm', [
      prop(
        'max-clients',
        'Max Clients Per Realm',
        "It won't be allowed to register more clients if count of existing clients in this realm is same or bigger than configured limit",
        'String',
        { defaultValue: '200' },
      ),
    ]),
    provider('registration-web-origins', 'Allowed web origins of client registration requests (CORS) for newly registered clients', [
      prop(
        'web-origins',
        'Allowed Web Origins',
        'List of web origins, from which client registration requests (CORS) are allowed. Use * to allow all origins',
        'MultivaluedString',
      ),
    ]),
    provider('scope', "When present, then newly registered client won't have full scope allowed"),
    provider(
      'trusted-hosts',
      "Allows to specify from which hosts is user able to register and which redirect URIs can client use in it's configuration",
      [
        prop(
          'trusted-hosts',
          'Trusted Hosts',
          "List of Hosts, which are trusted and are allowed to invoke Client Registration Service and/or be used as values of Client URIs. You can use hostnames or IP addresses. If you use star at the beginning (for example '*.example.com' ) then whole domain example.com will be trusted.",
          'MultivaluedString',
        ),
        prop(
          'host-sending-registration-request-must-match',
          'Host Sending Client Registration Request Must Match',
          'If on, then any client registration/update request via OpenID Connect Client Registration Service will be allowed just if it was sent from trusted host or domain.',
          'boolean',
          { defaultValue: 'true' },
        ),
        prop(
          'client-uris-must-match',
          'Client URIs Must Match',
          'If on, then all Client URIs (Redirect URIs and others) are allowed just if they match some trusted host or domain.',
          'boolean',
          { defaultValue: 'true' },
        ),
      ],
    ),
  ];
}
