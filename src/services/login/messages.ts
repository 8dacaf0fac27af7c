import { PASSWORD_POLICY_MESSAGES } from '../users/password-policy';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';

/**
 * The texts of the login pages: built-in English texts under Keycloak's message keys (so a realm's
 * localization texts, `PUT /admin/realms/{realm}/localization/{locale}`, override them key by key),
 * and the locale chosen for a request when the realm has internationalization enabled.
 */
export const ENGLISH: Record<string, string> = {
  loginAccountTitle: 'Sign in to your account',
  loginTitle: 'Sign in to {0}',
  usernameOrEmail: 'Username or email',
  username: 'Username',
  email: 'Email',
  password: 'Password',
  doLogIn: 'Sign in',
  doContinue: 'Continue',
  doLogout: 'Log out',
  restartLoginTooltip: 'Restart login',
  errorTitle: 'We are sorry...',
  errorTitleHtml: 'We are sorry...',
  invalidUserMessage: 'Invalid username or password.',
  invalidUsernameMessage: 'Invalid username.',
  'organization.select': 'Select an organization to proceed:',
  notMemberOfOrganization: 'User is not a member of the organization {0}',
  notMemberOfAnyOrganization: 'User is not a member of any organization',
  // Keycloak writes this one as a literal (OrganizationAuthenticator#unknownUserChallenge); the key is idserver's.
  organizationDomainNoAccount: "Your email domain matches the {0} organization but you don't have an account yet.",
  'identity-provider-login-label': 'Or sign in with',
  confirmLinkIdpTitle: 'Account already exists',
  confirmLinkIdpReviewProfile: 'Review profile',
  confirmLinkIdpContinue: 'Add to existing account',
  federatedIdentityConfirmLinkMessage: 'User with {0} {1} already exists. How do you want to continue?',
  federatedIdentityExistsMessage: 'User with {0} {1} already exists. Please login to account management to link the account.',
  federatedIdentityConfirmReauthenticateMessage: 'Authenticate to link your account with {0}',
  emailLinkIdpTitle: 'Link {0}',
  emailLinkIdp1: 'An email with instructions to link {0} account {1} with your {2} account has been sent to you.',
  couldNotSendAuthenticationRequestMessage: 'Could not send authentication request to identity provider.',
  identityProviderUnexpectedErrorMessage: 'Unexpected error when authenticating with identity provider',
  identityProviderMissingStateMessage: 'Missing state parameter in response from identity provider.',
  identityProviderInvalidResponseMessage: 'Invalid response from identity provider.',
  identityProviderNotFoundMessage: 'Could not find an identity provider with the identifier.',
  invalidUsernameOrEmailMessage: 'Invalid username or email.',
  accountDisabledMessage: 'Account is disabled, contact your administrator.',
  accessDeniedMessage: 'Access denied',
  clientNotFoundMessage: 'Client not found.',
  clientDisabledMessage: 'Client disabled.',
  bearerOnlyMessage: 'Bearer-only applications are not allowed to initiate browser login.',
  wrongClientProtocolMessage: 'Wrong client protocol.',
  missingParameterMessage: 'Missing parameter: {0}',
  invalidParameterMessage: 'Invalid parameter: {0}',
  acrNotFulfilled: 'Authentication requirements not fulfilled',
  realmNotEnabledMessage: 'Realm not enabled.',
  realmNotFoundMessage: 'Realm does not exist.',
  expiredCodeMessage: 'Login timeout. Please sign in again.',
  cookieNotFoundMessage: 'Cookie not found. Please make sure cookies are enabled in your browser.',
  staleCodeMessage: 'This page is no longer valid, please go back to your application and sign in again',
  unsupportedStepMessage: 'This login needs a step this server does not offer yet: {0}.',
  requiredActionsPendingTitle: 'Your account needs attention',
  requiredActionsPendingMessage:
    'Your account has actions to complete before you can sign in ({0}). This server cannot complete them yet: ask your administrator.',
  internalServerErrorMessage: 'An unexpected error happened while handling your request.',
  invalidRedirectUriMessage: 'Invalid redirect uri',
  backToApplication: '« Back to application',
  logoutConfirmTitle: 'Logging out',
  logoutConfirmHeader: 'Do you want to log out?',
  loggedOutTitle: 'You are logged out',
  loggedOutMessage: 'You are logged out.',
  languageLabel: 'Language',
  updatePasswordTitle: 'Update password',
  passwordNew: 'New password',
  passwordConfirm: 'Confirm password',
  doSubmit: 'Submit',
  doAccept: 'Accept',
  doDecline: 'Decline',
  missingPasswordMessage: 'Please specify password.',
  notMatchPasswordMessage: "Passwords don't match.",
  termsTitle: 'Terms and Conditions',
  termsText: 'Terms and conditions to be defined',
  loginTotpTitle: 'Mobile Authenticator Setup',
  loginTotpStep1: 'Install an authenticator application on your mobile (FreeOTP, Google Authenticator, Microsoft Authenticator ...).',
  loginTotpScanBarcode: 'Scan the barcode:',
  loginTotpQrAlt: 'QR code of the authenticator key',
  loginTotpManualStep: 'Unable to scan? Enter this key in the application:',
  loginTotpUri: 'Or open this link on the device:',
  loginTotpStep3: 'Enter the one-time code provided by the application.',
  loginTotpOneTime: 'One-time code',
  loginTotpDeviceName: 'Device Name',
  loginOtpOneTime: 'One-time code',
  doLogInOtp: 'Sign in',
  missingTotpMessage: 'Please specify authenticator code.',
  invalidTotpMessage: 'Invalid authenticator code.',
  doForgotPassword: 'Forgot Password?',
  emailForgotTitle: 'Forgot Your Password?',
  emailInstruction: 'Enter your username or email address and we will send you instructions on how to create a new password.',
  emailSentMessage: 'You should receive an email shortly with further instructions.',
  missingUsernameMessage: 'Please specify username.',
  emailVerifyTitle: 'Email verification',
  emailVerifyInstruction1: 'An email with instructions to verify your email address has been sent to your address {0}.',
  emailVerifyInstruction2: "Haven't received a verification code in your email?",
  emailVerifyResend: 'Re-send the email',
  emailSendErrorMessage: 'Failed to send email, please try again later.',
  emailVerifiedMessage: 'Your email address has been verified.',
  accountUpdatedMessage: 'Your account has been updated.',
  proceedWithAction: '» Click here to proceed',
  confirmOrganizationMembershipTitle: 'You are about to join organization {0}',
  confirmOrganizationMembership: 'Follow the link below to become a member of the organization {0}.',
  orgNotFoundMessage: 'Organization {0} not found.',
  registerTitle: 'Register',
  doRegister: 'Register',
  noAccount: 'New user?',
  backToLogin: '« Back to Login',
  registrationNotAllowedMessage: 'Registration not allowed',
  invalidPasswordConfirmMessage: "Password confirmation doesn't match.",
  termsAcceptanceRequired: 'You must agree to our terms and conditions.',
  acceptTerms: 'I agree to the terms and conditions',
  recaptchaFailed: 'Invalid Recaptcha',
  recaptchaNotConfigured: 'Recaptcha is required, but not configured',
  invitationEmailMismatch: 'Email does not match the invitation',
  requiredFields: 'Required fields',
  oauthGrantInformation: 'Make sure you trust {0} by learning how {0} will handle your data.',
  oauthGrantReview: 'You could review the ',
  oauthGrantTos: 'terms of service.',
  oauthGrantPolicy: 'privacy policy.',
  orgMemberAlready: 'User {0} is already a member of the organization {1}.',
  staleInviteOrgLink: 'This invitation is no longer valid. Ask the organization for a new one.',
  expiredActionMessage: 'Action expired. Please continue with login now.',
  expiredActionTokenNoSessionMessage: 'Action expired.',
  invalidCodeMessage: 'An error occurred, please login again through your application.',
  invalidRequestMessage: 'Invalid Request',
  staleEmailVerificationLink:
    'The link you clicked is an old stale link and is no longer valid. Maybe you have already verified your email.',
  resetCredentialNotAllowedMessage: 'Reset Credential not allowed',
  unknownLoginRequesterMessage: 'Unknown login requester.',
  loginRequesterNotEnabledMessage: 'Login requester not enabled.',
  doCancel: 'Cancel',
  loginProfileTitle: 'Update Account Information',
  firstName: 'First name',
  lastName: 'Last name',
  missingEmailMessage: 'Please specify email.',
  missingFirstNameMessage: 'Please specify first name.',
  missingLastNameMessage: 'Please specify last name.',
  invalidEmailMessage: 'Invalid email address.',
  usernameExistsMessage: 'Username already exists.',
  emailExistsMessage: 'Email already exists.',
  'error-user-attribute-required': 'Please specify this field.',
  'error-invalid-length': 'Length must be between {1} and {2}.',
  'error-invalid-length-too-short': 'Minimal length is {1}.',
  'error-invalid-length-too-long': 'Maximal length is {2}.',
  'error-invalid-email': 'Invalid email address.',
  'error-invalid-number': 'Invalid number.',
  'error-number-out-of-range': 'Number must be between {1} and {2}.',
  'error-pattern-no-match': 'Invalid value.',
  'error-invalid-value': 'Invalid value.',
  'error-invalid-multivalued-size': 'Attribute {0} must have at least {1} and at most {2} value(s).',
  addValue: 'Add {0}',
  removeValue: 'Remove',
  'error-username-invalid-character': 'Username contains invalid character.',
  'error-person-name-invalid-character': 'Name contains invalid character.',
  deleteCredentialTitle: 'Delete {0}',
  deleteCredentialMessage: 'Do you want to delete {0}?',
  doConfirmDelete: 'Confirm deletion',
  'otp-reset-description': 'Which OTP configuration should be removed?',
  resetOtpMissingIdError: 'You must select an OTP configuration.',
  oauthGrantTitle: 'Grant Access to {0}',
  oauthGrantRequest: 'Do you grant these access privileges?',
  doYes: 'Yes',
  doNo: 'No',
  profileScopeConsentText: 'User profile',
  emailScopeConsentText: 'Email address',
  addressScopeConsentText: 'Address',
  phoneScopeConsentText: 'Phone number',
  offlineAccessScopeConsentText: 'Offline Access',
  rolesScopeConsentText: 'User roles',
  organizationScopeConsentText: 'Organization',
  samlRoleListScopeConsentText: 'My Roles',
  'frontchannel-logout.title': 'Logging out',
  'frontchannel-logout.message': 'You are logging out from following apps',
  ...PASSWORD_POLICY_MESSAGES,
};

/** Keycloak's required action ids as a user reads them. */
export const REQUIRED_ACTION_TEXTS: Record<string, string> = {
  UPDATE_PASSWORD: 'update your password',
  VERIFY_EMAIL: 'verify your email',
  UPDATE_PROFILE: 'update your profile',
  CONFIGURE_TOTP: 'set up an authenticator app',
  TERMS_AND_CONDITIONS: 'accept the terms and conditions',
  VERIFY_PROFILE: 'complete your profile',
  'webauthn-register': 'register a passkey',
  'webauthn-register-passwordless': 'register a passkey',
};

const flag = (v: unknown) => v === true || v === 'true';

/** The locales a realm offers (empty when internationalization is off: English only). */
export function supportedLocales(realm: RealmModel): string[] {
  if (!flag(realm.settings.internationalizationEnabled)) return [];
  const list = Array.isArray(realm.settings.supportedLocales) ? realm.settings.supportedLocales.map(String) : [];
  const dflt = typeof realm.settings.defaultLocale === 'string' && realm.settings.defaultLocale ? realm.settings.defaultLocale : undefined;
  return [...new Set([...list, ...(dflt ? [dflt] : [])])];
}

/** Where a request may ask for a locale, in Keycloak's order of precedence. */
export interface LocaleHints {
  /** The `kc_locale` query parameter (a language picked on the page). */
  kcLocale?: string;
  /** The KEYCLOAK_LOCALE cookie. */
  cookie?: string;
  /** The authorization request's `ui_locales` (space-separated). */
  uiLocales?: string;
  acceptLanguage?: string;
}

/** The first supported locale among `wanted` (exact, then by language: `de-CH` finds `de`). */
function pick(wanted: string[], supported: string[]): string | undefined {
  const lower = supported.map((s) => s.toLowerCase());
  for (const w of wanted.map((x) => x.trim().toLowerCase()).filter(Boolean)) {
    const exact = lower.indexOf(w);
    if (exact >= 0) return supported[exact];
    const lang = lower.indexOf(w.split('-')[0]);
    if (lang >= 0) return supported[lang];
  }
  return undefined;
}

/** The request's locale: kc_locale, the cookie, ui_locales, Accept-Language, the realm's default, English. */
export function chooseLocale(realm: RealmModel, hints: LocaleHints): string {
  const supported = supportedLocales(realm);
  if (!supported.length) return 'en';
  const accept = (hints.acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.find((p) => p.trim().startsWith('q='));
      return { tag: tag.trim(), q: q ? Number(q.trim().slice(2)) || 0 : 1 };
    })
    .filter((x) => x.tag && x.tag !== '*' && x.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((x) => x.tag);
  for (const wanted of [[hints.kcLocale ?? ''], [hints.cookie ?? ''], (hints.uiLocales ?? '').split(' '), accept]) {
    const found = pick(wanted, supported);
    if (found) return found;
  }
  const dflt = realm.settings.defaultLocale;
  return typeof dflt === 'string' && dflt ? dflt : supported[0];
}

/** The texts of a locale: the built-in English ones under the realm's own texts for that locale (one indexed query). */
export async function textsFor(db: Db, realm: RealmModel, locale: string): Promise<Record<string, string>> {
  if (!flag(realm.settings.internationalizationEnabled)) return ENGLISH;
  const rows = await db.models.RealmLocalization.findAll({ where: { realmId: realm.id, locale }, attributes: ['key', 'value'] });
  const out = { ...ENGLISH };
  for (const r of rows) out[r.key] = r.value;
  return out;
}

/** A message with its parameters (`{0}`, `{1}` ...) filled in. */
export function format(texts: Record<string, string>, key: string, params: string[] = []): string {
  const template = texts[key] ?? ENGLISH[key] ?? key;
  return template.replace(/\{(\d+)\}/g, (m, i) => params[Number(i)] ?? m);
}
