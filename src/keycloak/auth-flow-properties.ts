/**
 * Config property descriptions (Keycloak ConfigPropertyRepresentation) shared by the provider
 * catalogues of authenticator-providers.ts: the helpers and the longer property lists.
 */
import type { ConfigPropertyRep } from '../representations/config-property';

/** Keycloak's ConfigPropertyRepresentation. */
export type ConfigProperty = ConfigPropertyRep;

type PropOpts = { defaultValue?: unknown; options?: string[]; secret?: boolean };
export const prop = (name: string, label: string, type: string, helpText: string, o: PropOpts = {}): ConfigProperty => ({
  name,
  label,
  helpText,
  type,
  ...(o.defaultValue !== undefined ? { defaultValue: o.defaultValue } : {}),
  ...(o.options ? { options: o.options } : {}),
  secret: o.secret ?? false,
  required: false,
  readOnly: false,
});

export const negate = prop('negate', 'Negate output', 'boolean', 'Inverts the result of the condition.', { defaultValue: false });
export const bool = (name: string, label: string, help: string, def = false) => prop(name, label, 'boolean', help, { defaultValue: def });
export const str = (name: string, label: string, help: string) => prop(name, label, 'String', help);

export const x509 = [
  prop(
    'x509-cert-auth.mapping-source-selection',
    'User Identity Source',
    'List',
    'Where the user identity is read from in the certificate.',
    {
      defaultValue: 'Match SubjectDN using regular expression',
      options: [
        'Match SubjectDN using regular expression',
        "Subject's e-mail",
        "Subject's Alternative Name E-mail",
        "Subject's Alternative Name otherName (UPN)",
        "Subject's Common Name",
        'Match IssuerDN using regular expression',
        'Certificate Serial Number',
        'Certificate Serial Number and IssuerDN',
        'SHA-256 Thumbprint',
        'Full Certificate in PEM format',
      ],
    },
  ),
  bool('x509-cert-auth.canonical-dn-enabled', 'Canonical DN representation enabled', 'Use the canonical form of distinguished names.'),
  bool(
    'x509-cert-auth.serialnumber-hex-enabled',
    'Enable Serial Number hexadecimal representation',
    'Read the serial number as hexadecimal.',
  ),
  prop(
    'x509-cert-auth.regular-expression',
    'A regular expression to extract user identity',
    'String',
    'Regular expression applied to the source.',
    {
      defaultValue: '(.*?)(?:$)',
    },
  ),
  prop('x509-cert-auth.mapper-selection', 'User mapping method', 'List', 'How the extracted identity is matched to a user.', {
    defaultValue: 'Username or Email',
    options: ['Username or Email', 'Custom Attribute Mapper'],
  }),
  prop('x509-cert-auth.mapper-selection.user-attribute-name', 'A name of user attribute', 'String', 'Attribute holding the identity.', {
    defaultValue: 'usercertificate',
  }),
  bool('x509-cert-auth.timestamp-validation-enabled', 'Check certificate validity', 'Reject expired or not yet valid certificates.', true),
  bool('x509-cert-auth.crl-checking-enabled', 'CRL Checking Enabled', 'Check the certificate against revocation lists.'),
  bool(
    'x509-cert-auth.crldp-checking-enabled',
    'Enable CRL Distribution Point to check certificate revocation status',
    'Use the CRL distribution points.',
  ),
  str('x509-cert-auth.crl-relative-path', 'CRL file path', 'Path of the revocation list files.'),
  bool('x509-cert-auth-crl-abort-if-non-updated', 'Abort if CRL is outdated', 'Fail when a revocation list is past its next update.'),
  bool('x509-cert-auth.ocsp-checking-enabled', 'OCSP Checking Enabled', 'Check revocation through OCSP.'),
  bool('x509-cert-auth.ocsp-fail-open', 'OCSP Fail-Open Behavior', 'Accept the certificate when OCSP cannot be reached.'),
  str('x509-cert-auth.ocsp-responder-uri', 'OCSP Responder Uri', 'Overrides the responder URI of the certificate.'),
  prop('x509-cert-auth.ocsp-responder-certificate', 'OCSP Responder Certificate', 'Text', 'Certificate that signs OCSP responses.'),
  str('x509-cert-auth.keyusage', 'Validate Key Usage', 'Required key usage bits.'),
  str('x509-cert-auth.extendedkeyusage', 'Validate Extended Key Usage', 'Required extended key usages.'),
  bool('x509-cert-auth.confirmation-page-disallowed', 'Bypass identity confirmation', 'Skip the confirmation page.'),
  bool(
    'x509-cert-auth.revalidate-certificate-enabled',
    'Revalidate Client Certificate',
    'Check the certificate chain against the truststore.',
  ),
  str('x509-cert-auth.certificate-policy', 'Validate Certificate Policy', 'Required certificate policy OIDs.'),
  prop(
    'x509-cert-auth.certificate-policy-mode',
    'Certificate Policy Validation Mode',
    'List',
    'Whether all or any policy must be present.',
    {
      defaultValue: 'All',
      options: ['All', 'Any'],
    },
  ),
];

export const recaptchaCommon = [
  str('action', 'Action Name', 'Action name sent with the reCAPTCHA request.'),
  bool('useRecaptchaNet', 'Use recaptcha.net', 'Loads the script from recaptcha.net instead of google.com.'),
  bool('recaptcha.v3', 'Version 3', 'Uses the invisible reCAPTCHA v3.'),
];

export const maxAuthAge = prop(
  'max_auth_age',
  'Maximum Age of Authentication',
  'int',
  'Seconds since login within which no re-authentication is asked.',
  {
    defaultValue: 300,
  },
);
