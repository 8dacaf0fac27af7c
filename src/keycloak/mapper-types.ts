/**
 * The catalogue of protocol mapper types (config reference §4.2): id, protocol, display name,
 * category, priority and config properties. Protocol mapper validation reads it, the token engine
 * (token-claims.ts) applies the OIDC ones, and serverinfo can list it (`protocolMapperTypes`).
 */
export interface ConfigProperty {
  name: string;
  label: string;
  helpText: string;
  type: 'String' | 'boolean' | 'List' | 'ClientList' | 'Role' | 'UserProfileAttributeList' | 'Text';
  defaultValue?: string;
  options?: string[];
  secret: false;
  readOnly: false;
}

export interface MapperType {
  id: string;
  protocol: 'openid-connect' | 'saml' | 'docker-v2';
  name: string;
  category: string;
  helpText: string;
  priority: number;
  properties: ConfigProperty[];
}

type P = Omit<ConfigProperty, 'secret' | 'readOnly'>;
const prop = (p: P): ConfigProperty => ({ ...p, secret: false, readOnly: false });
const flag = (name: string, label: string, dflt?: string): ConfigProperty =>
  prop({ name, label, helpText: `${label}?`, type: 'boolean', ...(dflt !== undefined ? { defaultValue: dflt } : {}) });
const text = (name: string, label: string, dflt?: string): ConfigProperty =>
  prop({ name, label, helpText: label, type: 'String', ...(dflt !== undefined ? { defaultValue: dflt } : {}) });
const JSON_TYPES = ['String', 'long', 'int', 'boolean', 'JSON'];
const NAME_FORMATS = ['Basic', 'URI Reference', 'Unspecified'];

const idT = (d = 'true') => flag('id.token.claim', 'Add to ID token', d);
const accessT = () => flag('access.token.claim', 'Add to access token', 'true');
const light = () => flag('lightweight.claim', 'Add to lightweight access token', 'false');
const userinfo = () => flag('userinfo.token.claim', 'Add to userinfo', 'true');
const intro = () => flag('introspection.token.claim', 'Add to token introspection', 'true');
const claimName = () => text('claim.name', 'Token Claim Name');
const jsonType = () =>
  prop({ name: 'jsonType.label', label: 'Claim JSON Type', helpText: 'JSON type of the claim', type: 'List', options: JSON_TYPES });
const allTokens = () => [idT(), accessT(), light(), userinfo(), intro()];
const samlName = () => [
  text('friendly.name', 'Friendly Name'),
  text('attribute.name', 'SAML Attribute Name'),
  prop({
    name: 'attribute.nameformat',
    label: 'SAML Attribute NameFormat',
    helpText: 'SAML Attribute NameFormat',
    type: 'List',
    options: NAME_FORMATS,
  }),
];
const role = () => prop({ name: 'role', label: 'Role', helpText: 'Role name (clientId.roleName for a client role)', type: 'Role' });
const attr = (type: ConfigProperty['type'] = 'UserProfileAttributeList') =>
  prop({ name: 'user.attribute', label: 'User Attribute', helpText: 'Name of the user attribute', type });

const oidc = (id: string, name: string, priority: number, properties: ConfigProperty[], helpText = name): MapperType => ({
  id,
  protocol: 'openid-connect',
  name,
  category: 'Token mapper',
  helpText,
  priority,
  properties,
});
const saml = (id: string, name: string, category: string, properties: ConfigProperty[]): MapperType => ({
  id,
  protocol: 'saml',
  name,
  category,
  helpText: name,
  priority: 0,
  properties,
});

/** All mapper types of the server, OIDC first. */
export const MAPPER_TYPES: MapperType[] = [
  oidc('oidc-usermodel-attribute-mapper', 'User Attribute', 0, [
    attr(),
    claimName(),
    jsonType(),
    ...allTokens(),
    flag('multivalued', 'Multivalued'),
    flag('aggregate.attrs', 'Aggregate attribute values'),
  ]),
  oidc('oidc-full-name-mapper', "User's full name", 0, allTokens()),
  oidc('oidc-usermodel-property-mapper', 'User Property', 0, [attr('String'), claimName(), jsonType(), ...allTokens()]),
  oidc('oidc-address-mapper', 'User Address', 0, [
    ...allTokens(),
    ...['street', 'locality', 'region', 'postal_code', 'country', 'formatted'].map((k) =>
      text(`user.attribute.${k}`, `User Attribute Name for ${k}`, k),
    ),
  ]),
  oidc('oidc-hardcoded-claim-mapper', 'Hardcoded claim', 0, [
    claimName(),
    text('claim.value', 'Claim value'),
    jsonType(),
    idT(),
    accessT(),
    light(),
    userinfo(),
    flag('access.tokenResponse.claim', 'Add to access token response', 'false'),
    intro(),
  ]),
  oidc('oidc-hardcoded-role-mapper', 'Hardcoded Role', 20, [role()]),
  oidc('oidc-role-name-mapper', 'Role Name Mapper', 10, [role(), text('new.role.name', 'New Role Name')]),
  oidc('oidc-usersessionmodel-note-mapper', 'User Session Note', 0, [
    text('user.session.note', 'User Session Note'),
    claimName(),
    jsonType(),
    idT(),
    accessT(),
    light(),
    userinfo(),
    flag('access.tokenResponse.claim', 'Add to access token response', 'false'),
    intro(),
  ]),
  oidc('oidc-group-membership-mapper', 'Group Membership', 0, [claimName(), flag('full.path', 'Full group path', 'true'), ...allTokens()]),
  oidc('oidc-audience-mapper', 'Audience', 0, [
    prop({
      name: 'included.client.audience',
      label: 'Included Client Audience',
      helpText: 'Client ID added to the audience',
      type: 'ClientList',
    }),
    text('included.custom.audience', 'Included Custom Audience'),
    idT('false'),
    accessT(),
    light(),
    intro(),
  ]),
  oidc('oidc-organization-membership-mapper', 'Organization Membership', 0, [
    claimName(),
    ...allTokens(),
    prop({
      name: 'jsonType.label',
      label: 'Claim JSON Type',
      helpText: 'JSON type of the claim',
      type: 'List',
      defaultValue: 'String',
      options: ['String', 'JSON'],
    }),
    flag('multivalued', 'Multivalued', 'true'),
    flag('addOrganizationAttributes', 'Add organization attributes', 'false'),
    flag('addOrganizationId', 'Add organization id', 'false'),
  ]),
  oidc('oidc-audience-resolve-mapper', 'Audience Resolve', 30, [accessT(), light(), intro()]),
  oidc('oidc-allowed-origins-mapper', 'Allowed Web Origins', 0, [accessT(), light(), intro()]),
  oidc('oidc-acr-mapper', 'Authentication Context Class Reference (ACR)', 0, [idT(), accessT(), light(), intro()]),
  oidc('oidc-amr-mapper', 'Authentication Method Reference (AMR)', 0, [idT(), accessT(), light()]),
  oidc('oidc-usermodel-client-role-mapper', 'User Client Role', 40, [
    prop({ name: 'usermodel.clientRoleMapping.clientId', label: 'Client ID', helpText: 'Client ID for role mappings', type: 'ClientList' }),
    text('usermodel.clientRoleMapping.rolePrefix', 'Client Role prefix'),
    flag('multivalued', 'Multivalued', 'true'),
    claimName(),
    jsonType(),
    ...allTokens(),
  ]),
  oidc('oidc-usermodel-realm-role-mapper', 'User Realm Role', 40, [
    text('usermodel.realmRoleMapping.rolePrefix', 'Realm Role prefix'),
    flag('multivalued', 'Multivalued', 'true'),
    claimName(),
    jsonType(),
    ...allTokens(),
  ]),
  oidc('oidc-sha256-pairwise-sub-mapper', 'Pairwise subject identifier', 0, [
    text('sectorIdentifierUri', 'Sector Identifier URI'),
    text('pairwiseSubAlgorithmSalt', 'Salt'),
  ]),
  oidc('oidc-claims-param-token-mapper', 'Claims parameter Token', 0, [idT(), userinfo()]),
  oidc('oidc-claims-param-value-idtoken-mapper', 'Claims parameter with value ID Token', 0, [claimName(), idT()]),
  oidc('oidc-nonce-backwards-compatible-mapper', 'Nonce backwards compatible', 0, []),
  oidc('oidc-session-state-mapper', 'Session State (session_state)', 0, allTokens()),
  oidc('oidc-sub-mapper', 'Subject (sub)', -10, [accessT(), light(), intro()]),
  saml('saml-role-list-mapper', 'Role list', 'Role Mapper', [
    text('attribute.name', 'Role attribute name', 'Role'),
    ...samlName().slice(0, 1),
    samlName()[2],
    flag('single', 'Single Role Attribute', 'true'),
  ]),
  saml('saml-role-name-mapper', 'Role Name Mapper', 'Role Mapper', [role(), text('new.role.name', 'New Role Name')]),
  saml('saml-hardcode-role-mapper', 'Hardcoded role', 'AttributeStatement Mapper', [role()]),
  saml('saml-hardcode-attribute-mapper', 'Hardcoded attribute', 'AttributeStatement Mapper', [
    ...samlName(),
    text('attribute.value', 'Attribute value'),
  ]),
  saml('saml-user-attribute-mapper', 'User Attribute', 'AttributeStatement Mapper', [
    attr(),
    ...samlName(),
    flag('aggregate.attrs', 'Aggregate attribute values'),
  ]),
  saml('saml-user-property-mapper', 'User Property', 'AttributeStatement Mapper', [attr(), ...samlName()]),
  saml('saml-user-session-note-mapper', 'User Session Note', 'AttributeStatement Mapper', [
    text('note', 'User Session Note'),
    ...samlName(),
  ]),
  saml('saml-group-membership-mapper', 'Group list', 'Group Mapper', [
    text('attribute.name', 'Group attribute name', 'member'),
    samlName()[0],
    samlName()[2],
    flag('single', 'Single Group Attribute', 'true'),
    flag('full.path', 'Full group path', 'true'),
  ]),
  saml('saml-audience-mapper', 'Audience', 'Audience mapper', [
    prop({
      name: 'included.client.audience',
      label: 'Included Client Audience',
      helpText: 'Client ID added to the audience',
      type: 'ClientList',
    }),
    text('included.custom.audience', 'Included Custom Audience'),
  ]),
  saml('saml-audience-resolve-mapper', 'Audience Resolve', 'Audience mapper', []),
  saml('saml-user-attribute-nameid-mapper', 'User Attribute Mapper For NameID', 'NameID Mapper', [
    prop({
      name: 'mapper.nameid.format',
      label: 'Name ID Format',
      helpText: 'Name ID Format',
      type: 'List',
      options: ['unspecified', 'emailAddress', 'persistent', 'transient'].map(
        (f) => `urn:oasis:names:tc:SAML:${f === 'unspecified' || f === 'emailAddress' ? '1.1' : '2.0'}:nameid-format:${f}`,
      ),
    }),
    attr(),
  ]),
  saml('saml-organization-membership-mapper', 'Organization Membership', 'AttributeStatement Mapper', []),
];

const BY_ID = new Map(MAPPER_TYPES.map((t) => [t.id, t]));

/** The mapper type with this provider id, or undefined. */
export const mapperType = (id: string): MapperType | undefined => BY_ID.get(id);

/** serverinfo `protocolMapperTypes`: protocol → types (without the internal `protocol` field). */
export function protocolMapperTypes(): Record<string, Array<Omit<MapperType, 'protocol'>>> {
  const out: Record<string, Array<Omit<MapperType, 'protocol'>>> = {};
  for (const { protocol, ...t } of MAPPER_TYPES) {
    out[protocol] ??= [];
    out[protocol].push(t);
  }
  return out;
}

/**
 * Validates a mapper's config against its type (`validateConfig`): boolean properties take
 * "true"/"false", list properties one of their options. Returns an error message or undefined.
 * Keys the type does not declare are kept, as Keycloak keeps them.
 */
export function configProblem(type: MapperType, config: Record<string, string>): string | undefined {
  for (const p of type.properties) {
    const v = config[p.name];
    if (v === undefined) continue;
    if (p.type === 'boolean' && v !== 'true' && v !== 'false') return `Invalid value "${v}" for ${p.name}: expected true or false`;
    if (p.type === 'List' && p.options && !p.options.includes(v))
      return `Invalid value "${v}" for ${p.name}: expected one of ${p.options.join(', ')}`;
  }
  return undefined;
}
