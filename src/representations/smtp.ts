/**
 * The realm's `smtpServer` (Keycloak keeps a Map<String, String>): the keys Keycloak's email sender
 * reads, plus any other key a representation brings (stored as given). The password is masked as
 * `**********` in every representation.
 */
export type SmtpServerRep = {
  host?: string;
  port?: string;
  from?: string;
  fromDisplayName?: string;
  replyTo?: string;
  replyToDisplayName?: string;
  envelopeFrom?: string;
  ssl?: string;
  starttls?: string;
  auth?: string;
  authType?: string;
  user?: string;
  password?: string;
  [key: string]: unknown;
};
