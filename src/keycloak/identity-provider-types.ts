/**
 * The identity provider catalogue (config reference §8.3–8.4): provider ids with their names and
 * groups (serverinfo `identityProviders` / `socialProviders`, `GET /identity-provider/providers/{id}`)
 * and the mapper types an identity provider of each provider id supports (`.../mapper-types`).
 */
import type { ConfigPropertyRep } from '../representations/config-property';

/** A config property as Keycloak serialises ProviderConfigProperty / ConfigPropertyRepresentation. */
export type ConfigProperty = ConfigPropertyRep;

const prop = (name: string, label: string, type: string, helpText: string, extra: Partial<ConfigProperty> = {}): ConfigProperty => ({
  name,
  label,
  helpText,
  type,
  secret: false,
  required: false,
  readOnly: false,
  ...extra,
});

export interface IdentityProviderType {
  id: string;
  name: string;
  groupName: 'User-defined' | 'Social';
  configProperties: ConfigProperty[];
}

const S = 'String';
const BOOL = 'boolean';

/** Identity provider factories: the user-defined protocols first, then the social providers. */
export const IDENTITY_PROVIDER_TYPES: IdentityProviderType[] = [
  { id: 'oidc', name: 'OpenID Connect v1.0', groupName: 'User-defined', configProperties: [] },
  { id: 'keycloak-oidc', name: 'Keycloak OpenID Connect', groupName: 'User-defined', configProperties: [] },
  { id: 'saml', name: 'SAML v2.0', groupName: 'User-defined', configProperties: [] },
  { id: 'oauth2', name: 'OAuth v2', groupName: 'User-defined', configProperties: [] },
  {
    id: 'facebook',
    name: 'Facebook',
    groupName: 'Social',
    configProperties: [prop('fetchedFields', 'Additional user profile fields', S, 'Extra profile fields to request.')],
  },
  {
    id: 'paypal',
    name: 'PayPal',
    groupName: 'Social',
    configProperties: [prop('sandbox', 'Target sandbox', BOOL, 'Use the PayPal sandbox environment.')],
  },
  {
    id: 'github',
    name: 'GitHub',
    groupName: 'Social',
    configProperties: [
      prop('baseUrl', 'Base URL', S, 'Base URL of a GitHub Enterprise server.'),
      prop('apiUrl', 'API URL', S, 'API URL of a GitHub Enterprise server.'),
    ],
  },
  {
    id: 'google',
    name: 'Google',
    groupName: 'Social',
    configProperties: [
      prop('prompt', 'Prompt', S, 'Value of the prompt parameter.'),
      prop('hostedDomain', 'Hosted domain', S, 'Restrict logins to this Google Workspace domain.'),
      prop('userIp', 'Use userIp param', BOOL, 'Send the user IP address with user info requests.'),
      prop('offlineAccess', 'Request refresh token', BOOL, 'Request an offline refresh token.'),
    ],
  },
  { id: 'linkedin-openid-connect', name: 'LinkedIn', groupName: 'Social', configProperties: [] },
  {
    id: 'stackoverflow',
    name: 'StackOverflow',
    groupName: 'Social',
    configProperties: [prop('key', 'Key', S, 'The application key.')],
  },
  { id: 'twitter', name: 'Twitter', groupName: 'Social', configProperties: [] },
  {
    id: 'microsoft',
    name: 'Microsoft',
    groupName: 'Social',
    configProperties: [
      prop('prompt', 'Prompt', S, 'Value of the prompt parameter.'),
      prop('tenantId', 'Tenant ID', S, 'Restrict logins to this Entra ID tenant.'),
    ],
  },
  {
    id: 'openshift-v4',
    name: 'Openshift v4',
    groupName: 'Social',
    configProperties: [prop('baseUrl', 'Base URL', S, 'Base URL of the OpenShift API.')],
  },
  { id: 'gitlab', name: 'GitLab', groupName: 'Social', configProperties: [] },
  { id: 'bitbucket', name: 'BitBucket', groupName: 'Social', configProperties: [] },
];

const BY_ID = new Map(IDENTITY_PROVIDER_TYPES.map((t) => [t.id, t]));

/** The provider type of an id, or undefined when no such factory exists. */
export const identityProviderType = (id: unknown): IdentityProviderType | undefined => (typeof id === 'string' ? BY_ID.get(id) : undefined);

/** serverinfo `identityProviders`: every provider as `{groupName, name, id}`. */
export function serverInfoIdentityProviders(): Array<{ groupName: string; name: string; id: string }> {
  return IDENTITY_PROVIDER_TYPES.map((t) => ({ groupName: t.groupName, name: t.name, id: t.id }));
}

/** serverinfo `socialProviders`: the social providers as `{groupName, name, id}`. */
export function serverInfoSocialProviders(): Array<{ groupName: string; name: string; id: string }> {
  return serverInfoIdentityProviders().filter((p) => p.groupName === 'Social');
}

/** The factory object of `GET /identity-provider/providers/{id}`. */
/** Keycloak's provider factory description (GET .../identity-provider/providers/{provider_id}). */
export interface IdpProviderFactoryRep {
  name: string;
  id: string;
  configProperties: IdentityProviderType['configProperties'];
  helpText: string;
  configMetadata: unknown[];
}

export function providerFactoryRepresentation(t: IdentityProviderType): IdpProviderFactoryRep {
  return { name: t.name, id: t.id, configProperties: t.configProperties, helpText: '', configMetadata: [] };
}

export interface MapperType {
  id: string;
  name: string;
  category: string;
  helpText: string;
  /** Provider ids the mapper works with; `*` = all. */
  compatible: string[];
  properties: ConfigProperty[];
}

const OIDC = ['keycloak-oidc', 'oidc'];
const SOCIAL_USERNAME = [
  ...OIDC,
  'bitbucket',
  'facebook',
  'github',
  'gitlab',
  'google',
  'instagram',
  'linkedin-openid-connect',
  'microsoft',
  'openshift-v4',
  'paypal',
  'stackoverflow',
  'twitter',
];
const ROLE = prop('role', 'Role', 'Role', 'Role to grant to the user.');
const GROUP = prop('group', 'Group', 'Group', 'Group the user joins.');
const USER_ATTR = (name = 'user.attribute') =>
  prop(name, 'User Attribute Name', 'UserProfileAttributeList', 'User attribute to store the value in.');
const CLAIMS = prop('claims', 'Claims', 'Map', 'Claim names and values that must all be present.');
const TARGET = prop('target', 'Target', 'List', 'Where the generated username goes.', {
  defaultValue: 'LOCAL',
  options: ['LOCAL', 'BROKER_ID', 'BROKER_USERNAME'],
});
const SAML_ATTR = [
  prop('attribute.name', 'Attribute Name', S, 'Name of the attribute in the assertion.'),
  prop('attribute.friendly.name', 'Friendly Name', S, 'Friendly name of the attribute in the assertion.'),
];

const mapper = (
  id: string,
  compatible: string[],
  category: string,
  name: string,
  helpText: string,
  properties: ConfigProperty[],
): MapperType => ({
  id,
  name,
  category,
  helpText,
  compatible,
  properties,
});

const jsonFieldImporter = (provider: string, id = `${provider}-user-attribute-mapper`) =>
  mapper(
    id,
    [provider],
    'Attribute Importer',
    'Attribute Importer',
    'Imports a field of the provider profile JSON into a user attribute.',
    [prop('jsonField', 'Social Profile JSON Field Path', S, 'Path of the field in the profile JSON.'), USER_ATTR('userAttribute')],
  );

/** Identity provider mapper types (config reference §8.4). */
export const IDP_MAPPER_TYPES: MapperType[] = [
  mapper('oidc-hardcoded-group-idp-mapper', ['*'], 'Group Importer', 'Hardcoded Group', 'Adds the user to a group.', [GROUP]),
  mapper('oidc-hardcoded-role-idp-mapper', ['*'], 'Role Importer', 'Hardcoded Role', 'Grants a role to the user.', [ROLE]),
  mapper('hardcoded-attribute-idp-mapper', ['*'], 'Attribute Importer', 'Hardcoded Attribute', 'Sets a user attribute to a fixed value.', [
    USER_ATTR('attribute'),
    prop('attribute.value', 'Attribute Value', S, 'Value to set.'),
  ]),
  mapper(
    'hardcoded-user-session-attribute-idp-mapper',
    ['*'],
    'Attribute Importer',
    'Hardcoded User Session Attribute',
    'Sets a user session note to a fixed value.',
    [
      prop('attribute', 'User Session Attribute', S, 'Name of the session note.'),
      prop('attribute.value', 'User Session Attribute Value', S, 'Value to set.'),
    ],
  ),
  mapper('oidc-role-idp-mapper', OIDC, 'Role Importer', 'Claim to Role', 'Grants a role when a claim has a value.', [
    prop('claim', 'Claim', S, 'Name of the claim.'),
    prop('claim.value', 'Claim Value', S, 'Value the claim must have.'),
    ROLE,
  ]),
  mapper('oidc-advanced-role-idp-mapper', OIDC, 'Role Importer', 'Advanced Claim to Role', 'Grants a role when all listed claims match.', [
    CLAIMS,
    prop('are.claim.values.regex', 'Regex Claim Values', BOOL, 'Treat claim values as regular expressions.'),
    ROLE,
  ]),
  mapper(
    'oidc-advanced-group-idp-mapper',
    OIDC,
    'Group Importer',
    'Advanced Claim to Group',
    'Adds the user to a group when all listed claims match.',
    [CLAIMS, prop('are.claim.values.regex', 'Regex Claim Values', BOOL, 'Treat claim values as regular expressions.'), GROUP],
  ),
  mapper(
    'oidc-user-session-note-idp-mapper',
    OIDC,
    'User Session',
    'User Session Note Mapper',
    'Stores matching claims as user session notes.',
    [CLAIMS, prop('are.claim.values.regex', 'Regex Claim Values', BOOL, 'Treat claim values as regular expressions.')],
  ),
  mapper(
    'keycloak-oidc-role-to-role-idp-mapper',
    ['keycloak-oidc'],
    'Role Importer',
    'External Role to Role',
    'Maps a role of the external Keycloak to a role.',
    [prop('external.role', 'External role', S, 'Name of the external role.'), ROLE],
  ),
  mapper('oidc-user-attribute-idp-mapper', OIDC, 'Attribute Importer', 'Attribute Importer', 'Imports a claim into a user attribute.', [
    prop('claim', 'Claim', S, 'Name of the claim.'),
    USER_ATTR(),
  ]),
  mapper(
    'oidc-username-idp-mapper',
    SOCIAL_USERNAME,
    'Preprocessor',
    'Username Template Importer',
    'Builds the username from a template.',
    [prop('template', 'Template', S, 'Username template.', { defaultValue: '${ALIAS}.${CLAIM.preferred_username}' }), TARGET],
  ),
  mapper(
    'saml-advanced-role-idp-mapper',
    ['saml'],
    'Role Importer',
    'Advanced Attribute to Role',
    'Grants a role when all listed attributes match.',
    [
      prop('attributes', 'Attributes', 'Map', 'Attribute names and values that must all be present.'),
      prop('are.attribute.values.regex', 'Regex Attribute Values', BOOL, 'Treat attribute values as regular expressions.'),
      ROLE,
    ],
  ),
  mapper(
    'saml-advanced-group-idp-mapper',
    ['saml'],
    'Group Importer',
    'Advanced Attribute to Group',
    'Adds the user to a group when all listed attributes match.',
    [
      prop('attributes', 'Attributes', 'Map', 'Attribute names and values that must all be present.'),
      prop('are.attribute.values.regex', 'Regex Attribute Values', BOOL, 'Treat attribute values as regular expressions.'),
      GROUP,
    ],
  ),
  mapper('saml-role-idp-mapper', ['saml'], 'Role Mapper', 'SAML Attribute to Role', 'Grants a role when an attribute has a value.', [
    ...SAML_ATTR,
    prop('attribute.value', 'Attribute Value', S, 'Value the attribute must have.'),
    ROLE,
  ]),
  mapper(
    'saml-user-attribute-idp-mapper',
    ['saml'],
    'Attribute Importer',
    'Attribute Importer',
    'Imports an assertion attribute into a user attribute.',
    [
      ...SAML_ATTR,
      prop('attribute.name.format', 'Name Format', 'List', 'Name format of the attribute.', {
        defaultValue: 'ATTRIBUTE_FORMAT_BASIC',
        options: ['ATTRIBUTE_FORMAT_BASIC', 'ATTRIBUTE_FORMAT_URI', 'ATTRIBUTE_FORMAT_UNSPECIFIED'],
      }),
      USER_ATTR(),
    ],
  ),
  mapper(
    'saml-xpath-attribute-idp-mapper',
    ['saml'],
    'Attribute Importer',
    'XPath Attribute Importer',
    'Imports the result of an XPath expression into a user attribute.',
    [prop('attribute.xpath', 'XPath', S, 'XPath expression evaluated on the attribute value.'), ...SAML_ATTR, USER_ATTR()],
  ),
  mapper('saml-username-idp-mapper', ['saml'], 'Preprocessor', 'Username Template Importer', 'Builds the username from a template.', [
    prop('template', 'Template', S, 'Username template.', { defaultValue: '${ALIAS}.${NAMEID}' }),
    TARGET,
  ]),
  jsonFieldImporter('facebook'),
  jsonFieldImporter('github'),
  jsonFieldImporter('paypal'),
  jsonFieldImporter('google'),
  jsonFieldImporter('linkedin-openid-connect', 'linkedin-user-attribute-mapper'),
  jsonFieldImporter('stackoverflow'),
  jsonFieldImporter('microsoft'),
  jsonFieldImporter('instagram'),
  jsonFieldImporter('openshift-v4'),
];

/** `GET .../mapper-types`: the mapper types supported by a provider id, keyed by mapper id. */
/** Keycloak's IdentityProviderMapperTypeRepresentation. */
export type IdpMapperTypeRep = Pick<MapperType, 'id' | 'name' | 'category' | 'helpText' | 'properties'>;

export function mapperTypesFor(providerId: string): Record<string, IdpMapperTypeRep> {
  const out: Record<string, IdpMapperTypeRep> = {};
  for (const m of IDP_MAPPER_TYPES) {
    if (!m.compatible.includes('*') && !m.compatible.includes(providerId)) continue;
    out[m.id] = { id: m.id, name: m.name, category: m.category, helpText: m.helpText, properties: m.properties };
  }
  return out;
}
