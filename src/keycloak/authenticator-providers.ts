/**
 * The provider catalogues of authentication management (config reference §9.7, §9.9): authenticators,
 * client authenticators, form authenticators, form actions and required-action providers, in
 * Keycloak's registration order, with display names, requirement choices and config properties.
 * Data only; exported for the authentication services and for server info.
 */
import { type ConfigProperty, bool, maxAuthAge, negate, prop, recaptchaCommon, str, x509 } from './auth-flow-properties';

export type { ConfigProperty };
export type Requirement = 'REQUIRED' | 'ALTERNATIVE' | 'DISABLED' | 'CONDITIONAL';
export const REQUIREMENTS: readonly Requirement[] = ['REQUIRED', 'ALTERNATIVE', 'DISABLED', 'CONDITIONAL'];

export interface AuthenticatorProvider {
  id: string;
  displayName: string;
  description: string;
  referenceCategory?: string;
  configurable: boolean;
  userSetupAllowed: boolean;
  requirementChoices: Requirement[];
  properties: ConfigProperty[];
  /** Client authenticators only. */
  supportsSecret?: boolean;
}

const RAD: Requirement[] = ['REQUIRED', 'ALTERNATIVE', 'DISABLED'];
const RD: Requirement[] = ['REQUIRED', 'DISABLED'];
const R: Requirement[] = ['REQUIRED'];

type Def = [id: string, displayName: string, category: string | undefined, userSetup: boolean, choices: Requirement[], help: string];
function provider(
  [id, displayName, referenceCategory, userSetupAllowed, requirementChoices, description]: Def,
  properties: ConfigProperty[] = [],
) {
  return {
    id,
    displayName,
    description,
    ...(referenceCategory ? { referenceCategory } : {}),
    configurable: properties.length > 0,
    userSetupAllowed,
    requirementChoices,
    properties,
  } satisfies AuthenticatorProvider;
}

/** Authenticators (`GET /authentication/authenticator-providers`), 26.3 default features. */
export const AUTHENTICATORS: AuthenticatorProvider[] = [
  provider(['auth-cookie', 'Cookie', 'cookie', false, RAD, 'Validates the SSO cookie set by the auth server.']),
  provider([
    'auth-username-password-form',
    'Username Password Form',
    'password',
    false,
    R,
    'Validates a username and password from a login form.',
  ]),
  provider(['auth-username-form', 'Username Form', 'password', false, R, 'Selects a user from their username or email.']),
  provider(['auth-password-form', 'Password Form', 'password', false, RAD, 'Validates a password from a login form.']),
  provider(['auth-otp-form', 'OTP Form', 'otp', true, RAD, 'Validates a one-time password from a login form.']),
  // The KERBEROS feature is off: SpnegoDisabledAuthenticatorFactory's choices (DISABLED only).
  provider([
    'auth-spnego',
    'Kerberos',
    'kerberos',
    false,
    ['DISABLED'],
    'Disabled: the Kerberos feature is off on this server. Initiates the SPNEGO protocol.',
  ]),
  provider(
    ['identity-provider-redirector', 'Identity Provider Redirector', undefined, true, RAD, 'Redirects to the default identity provider.'],
    [str('defaultProvider', 'Default Identity Provider', 'Alias of the identity provider to redirect to automatically.')],
  ),
  provider(
    ['conditional-sub-flow-executed', 'Condition - sub-flow executed', 'condition', false, RD, 'Checks whether a sub-flow ran.'],
    [
      str('flow_to_check', 'Flow name', 'Alias of the sub-flow to check.'),
      prop('check_result', 'Check result', 'List', 'Expected outcome of the sub-flow.', {
        defaultValue: 'executed',
        options: ['executed', 'not-executed'],
      }),
    ],
  ),
  provider(
    ['conditional-client-scope', 'Condition - client scope', 'condition', false, RD, 'Checks whether a client scope is requested.'],
    [str('client_scope', 'Client scope name', 'Name of the client scope.'), negate],
  ),
  provider(
    ['conditional-user-role', 'Condition - user role', 'condition', false, RD, 'Checks whether the user has a role.'],
    [prop('condUserRole', 'User role', 'Role', 'The role the user must have.'), negate],
  ),
  provider([
    'conditional-user-configured',
    'Condition - user configured',
    'condition',
    false,
    RD,
    'Checks whether the user has set up the other executions.',
  ]),
  provider(
    [
      'conditional-level-of-authentication',
      'Condition - Level of Authentication',
      'condition',
      false,
      RD,
      'Checks the requested level of authentication.',
    ],
    [
      prop('loa-condition-level', 'Level of Authentication (LoA)', 'int', 'The level this sub-flow provides.'),
      prop('loa-max-age', 'Max Age', 'int', 'Seconds the level stays valid.', { defaultValue: 36000 }),
    ],
  ),
  provider(
    ['conditional-user-attribute', 'Condition - user attribute', 'condition', false, RD, 'Checks a user attribute value.'],
    [
      str('attribute_name', 'Attribute name', 'Name of the attribute.'),
      str('attribute_expected_value', 'Expected attribute value', 'Value the attribute must have.'),
      bool('include_group_attributes', 'Include group attributes', "Also look at the attributes of the user's groups."),
      bool('not', 'Negate output', 'Inverts the result of the condition.'),
      bool('regex', 'Regex', 'Treat the expected value as a regular expression.'),
    ],
  ),
  provider(['direct-grant-validate-otp', 'OTP', undefined, false, RAD, 'Validates the one-time password of a direct grant.']),
  provider(['direct-grant-validate-password', 'Password', undefined, false, RAD, 'Validates the password of a direct grant.']),
  provider(['direct-grant-validate-username', 'Username Validation', undefined, false, R, 'Validates the username of a direct grant.']),
  provider(['reset-credentials-choose-user', 'Choose User', undefined, false, R, 'Chooses the user whose credentials are reset.']),
  provider(
    ['reset-credential-email', 'Send Reset Email', undefined, false, R, 'Sends an email with a link to reset credentials.'],
    [
      prop('force-login', 'Force login after reset', 'List', 'Whether the user must log in after the reset.', {
        defaultValue: 'only-set-password',
        options: ['true', 'false', 'only-set-password'],
      }),
    ],
  ),
  provider(
    ['reset-otp', 'Reset OTP', undefined, false, RAD, 'Makes the user set up a new one-time password.'],
    [
      prop('action_on_otp_reset_flag', 'Action on OTP reset', 'List', 'Which OTP credentials are removed.', {
        defaultValue: 'Remove one',
        options: ['Remove one', 'Remove all'],
      }),
    ],
  ),
  provider(['reset-password', 'Reset Password', undefined, false, RAD, 'Makes the user choose a new password.']),
  provider(
    [
      'idp-review-profile',
      'Review Profile',
      'reviewProfile',
      false,
      RAD,
      'Lets the user review the profile imported from the identity provider.',
    ],
    [
      prop('update.profile.on.first.login', 'Update profile on first login', 'List', 'When the profile page is shown.', {
        defaultValue: 'missing',
        options: ['on', 'missing', 'off'],
      }),
    ],
  ),
  provider(
    [
      'idp-create-user-if-unique',
      'Create User If Unique',
      'createUserIfUnique',
      false,
      RAD,
      'Creates a user unless one with the same username or email exists.',
    ],
    [
      bool(
        'require.password.update.after.registration',
        'Require Password Update After Registration',
        'Asks the new user to set a password.',
      ),
    ],
  ),
  provider([
    'idp-detect-existing-broker-user',
    'Detect existing broker user',
    'detectExistingBrokerUser',
    false,
    RD,
    'Fails unless a matching user exists.',
  ]),
  provider([
    'idp-confirm-link',
    'Confirm link existing account',
    'confirmLink',
    false,
    RAD,
    'Asks the user to confirm linking the existing account.',
  ]),
  provider([
    'idp-confirm-override-link',
    'Confirm override existing link',
    'confirmOverrideLink',
    false,
    RD,
    'Asks the user to confirm replacing an existing link.',
  ]),
  provider([
    'idp-email-verification',
    'Verify existing account by Email',
    'emailVerification',
    false,
    RAD,
    'Verifies the existing account by email.',
  ]),
  provider([
    'idp-username-password-form',
    'Username Password Form for identity provider reauthentication',
    'password',
    false,
    R,
    'Re-authenticates the existing user.',
  ]),
  provider(['idp-auto-link', 'Automatically set existing user', 'autoLink', false, RAD, 'Links the existing user without asking.']),
  provider([
    'idp-add-organization-member',
    'Organization Member Onboard',
    'organization',
    true,
    RAD,
    'Adds the user to the organization of the identity provider.',
  ]),
  provider(
    ['auth-conditional-otp-form', 'Conditional OTP Form', 'otp', true, RAD, 'Asks for a one-time password depending on conditions.'],
    [
      str('otpControlAttribute', 'OTP control User Attribute', 'User attribute that forces or skips OTP.'),
      prop('skipOtpRole', 'Skip OTP for Role', 'Role', 'Users with this role skip OTP.'),
      prop('forceOtpRole', 'Force OTP for Role', 'Role', 'Users with this role must use OTP.'),
      prop('noOtpRequiredForHeaderPattern', 'Skip OTP for Header', 'String', 'Requests matching this header pattern skip OTP.'),
      prop('forceOtpForHeaderPattern', 'Force OTP for Header', 'String', 'Requests matching this header pattern must use OTP.'),
      prop('defaultOtpOutcome', 'Fallback OTP handling', 'List', 'What happens when no rule matched.', { options: ['skip', 'force'] }),
    ],
  ),
  provider([
    'http-basic-authenticator',
    'HTTP Basic Authentication',
    'basic',
    false,
    ['REQUIRED', 'ALTERNATIVE', 'CONDITIONAL', 'DISABLED'],
    'Validates HTTP basic credentials.',
  ]),
  provider(
    [
      'auth-x509-client-username-form',
      'X509/Validate Username Form',
      undefined,
      false,
      RAD,
      'Validates the username from the client certificate.',
    ],
    x509,
  ),
  provider(
    [
      'direct-grant-auth-x509-username',
      'X509/Validate Username',
      undefined,
      false,
      R,
      'Validates the username from the client certificate of a direct grant.',
    ],
    x509,
  ),
  provider(['docker-http-basic-authenticator', 'Docker Authenticator', 'docker', false, R, 'Authenticates Docker clients.']),
  provider(['webauthn-authenticator', 'WebAuthn Authenticator', 'webauthn', true, RAD, 'Authenticates with a WebAuthn authenticator.']),
  provider([
    'webauthn-authenticator-passwordless',
    'WebAuthn Passwordless Authenticator',
    'webauthn-passwordless',
    false,
    RAD,
    'Passwordless authentication with WebAuthn.',
  ]),
  provider(
    ['deny-access-authenticator', 'Deny access', undefined, false, RD, 'Denies access.'],
    [str('denyErrorMessage', 'Error message', 'Message shown when access is denied.')],
  ),
  provider(['allow-access-authenticator', 'Allow access', undefined, false, RD, 'Allows access.']),
  provider(
    ['user-session-limits', 'User session count limiter', undefined, false, RD, 'Limits the number of sessions of a user.'],
    [
      prop(
        'userRealmLimit',
        'Maximum concurrent sessions for each user within this realm.',
        'int',
        'Sessions a user may have in the realm.',
        {
          defaultValue: 3,
        },
      ),
      prop(
        'userClientLimit',
        'Maximum concurrent sessions for each user per keycloak client.',
        'int',
        'Sessions a user may have per client.',
        {
          defaultValue: 0,
        },
      ),
      prop('behavior', 'Behavior when user session limit is exceeded', 'List', 'What happens when a limit is reached.', {
        defaultValue: 'Deny new session',
        options: ['Deny new session', 'Terminate oldest session'],
      }),
      str('errorMessage', 'Optional custom error message', 'Message shown when a new session is denied.'),
    ],
  ),
  provider([
    'auth-recovery-authn-code-form',
    'Recovery Authentication Code Form',
    'recovery-authn-codes',
    true,
    RAD,
    'Validates a recovery authentication code.',
  ]),
  provider(
    ['organization', 'Organization Identity-First Login', undefined, true, RAD, 'Identity-first login for organization members.'],
    [bool('requiresUserMembership', 'Requires user membership', 'Only members of the organization may log in.')],
  ),
];

/** Form authenticators (`GET /authentication/form-providers`). */
export const FORM_PROVIDERS: AuthenticatorProvider[] = [
  provider(['registration-page-form', 'Registration Page', undefined, false, RD, 'The registration form and its actions.']),
];

/** Form actions (`GET /authentication/form-action-providers`). */
export const FORM_ACTIONS: AuthenticatorProvider[] = [
  provider([
    'registration-password-action',
    'Password Validation',
    'password',
    false,
    RD,
    'Validates the password fields of the registration form.',
  ]),
  provider([
    'registration-user-creation',
    'Registration User Profile Creation',
    undefined,
    false,
    RD,
    'Creates the user from the registration form.',
  ]),
  provider(
    ['registration-recaptcha-action', 'reCAPTCHA', 'recaptcha', false, RD, 'Adds reCAPTCHA to the registration form.'],
    [
      str('site.key', 'reCAPTCHA Site Key', 'The site key.'),
      prop('secret.key', 'reCAPTCHA Secret', 'Password', 'The secret key.', { secret: true }),
      ...recaptchaCommon,
    ],
  ),
  provider(
    [
      'registration-recaptcha-enterprise',
      'reCAPTCHA Enterprise',
      'recaptcha',
      false,
      RD,
      'Adds reCAPTCHA Enterprise to the registration form.',
    ],
    [
      str('project.id', 'Project ID', 'The Google Cloud project.'),
      str('site.key', 'reCAPTCHA Site Key', 'The site key.'),
      prop('api.key', 'Google API Key', 'Password', 'API key of the project.', { secret: true }),
      prop('score.threshold', 'Min. Score Threshold', 'String', 'Lowest accepted score.', { defaultValue: '0.7' }),
      ...recaptchaCommon,
    ],
  ),
  provider([
    'registration-terms-and-conditions',
    'Terms and conditions',
    'terms-and-conditions',
    false,
    RD,
    'Asks the user to accept the terms and conditions.',
  ]),
];

/** Client authenticators (`GET /authentication/client-authenticator-providers`). */
export const CLIENT_AUTHENTICATORS: AuthenticatorProvider[] = (
  [
    ['client-secret', 'Client Id and Secret', true, 'Validates the client id and secret.'],
    ['client-jwt', 'Signed Jwt', false, "Validates a JWT signed with the client's key."],
    ['client-secret-jwt', 'Signed Jwt with Client Secret', true, 'Validates a JWT signed with the client secret.'],
    ['client-x509', 'X509 Certificate', false, "Validates the client's X509 certificate."],
  ] as const
).map(([id, displayName, supportsSecret, help]) => ({ ...provider([id, displayName, undefined, false, RAD, help]), supportsSecret }));

/** Looks up a provider among authenticators, form actions and client authenticators (Keycloak's order). */
export function findConfigurableProvider(id: string): AuthenticatorProvider | undefined {
  return [...AUTHENTICATORS, ...FORM_PROVIDERS, ...FORM_ACTIONS, ...CLIENT_AUTHENTICATORS].find((p) => p.id === id);
}

/** The catalogue executions of a flow of this provider type draw from (`client-flow`, `form-flow`, else authenticators). */
export function providersForFlowType(flowProviderId: string): AuthenticatorProvider[] {
  if (flowProviderId === 'client-flow') return CLIENT_AUTHENTICATORS;
  if (flowProviderId === 'form-flow') return FORM_ACTIONS;
  return AUTHENTICATORS;
}

export interface RequiredActionProviderInfo {
  providerId: string;
  name: string;
  oneTimeAction: boolean;
  properties: ConfigProperty[];
}

/** Required-action providers (`unregistered-required-actions`, `register-required-action`). */
export const REQUIRED_ACTION_PROVIDERS: RequiredActionProviderInfo[] = (
  [
    ['UPDATE_PASSWORD', 'Update Password', true, true],
    ['UPDATE_PROFILE', 'Update Profile', false, true],
    ['CONFIGURE_TOTP', 'Configure OTP', true, true],
    ['VERIFY_EMAIL', 'Verify Email', false, true],
    ['TERMS_AND_CONDITIONS', 'Terms and Conditions', false, true],
    ['webauthn-register', 'Webauthn Register', false, true],
    ['webauthn-register-passwordless', 'Webauthn Register Passwordless', false, true],
    ['update_user_locale', 'Update User Locale', false, true],
    ['delete_account', 'Delete Account', true, false],
    ['delete_credential', 'Delete Credential', false, true],
    ['VERIFY_PROFILE', 'Verify Profile', false, true],
    ['CONFIGURE_RECOVERY_AUTHN_CODES', 'Recovery Authentication Codes', true, true],
    ['idp_link', 'Linking Identity Provider', false, true],
    ['UPDATE_EMAIL', 'Update Email', false, true],
  ] as const
).map(([providerId, name, oneTimeAction, configurable]) => ({
  providerId,
  name,
  oneTimeAction,
  properties: !configurable
    ? []
    : providerId === 'CONFIGURE_RECOVERY_AUTHN_CODES'
      ? [
          prop('warning_threshold', 'Warning Threshold', 'int', 'Remaining codes below which the user is warned.', { defaultValue: 4 }),
          maxAuthAge,
        ]
      : [maxAuthAge],
}));
