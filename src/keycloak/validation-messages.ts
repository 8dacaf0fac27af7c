/**
 * Keycloak's user-profile validation errors name a message key (`error-invalid-email`, ...) with
 * parameters `[attribute, ...]`; the admin console turns the key into words. These are the words
 * for the keys the user-profile validators of src/services/users/user-profile.ts raise, for the
 * fronts that show messages to people (GraphQL `UserError.message`). A key not listed (a custom
 * `error-message` of a validator) is shown as it is.
 */
type Params = readonly unknown[];

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

const MESSAGES: Record<string, (p: Params) => string> = {
  'error-invalid-email': (p) => `${text(p[0])} is not a valid email address.`,
  'error-invalid-length': (p) => `${text(p[0])} must be between ${text(p[1])} and ${text(p[2])} characters long.`,
  'error-invalid-length-too-short': (p) => `${text(p[0])} must be at least ${text(p[1])} characters long.`,
  'error-invalid-length-too-long': (p) => `${text(p[0])} must be at most ${text(p[2])} characters long.`,
  'error-username-invalid-character': (p) => `${text(p[0])} contains a character that is not allowed.`,
  'error-person-name-invalid-character': (p) => `${text(p[0])} contains a character that is not allowed.`,
  'error-pattern-no-match': (p) => `${text(p[0])} does not match the pattern ${text(p[1])}.`,
  'error-invalid-value': (p) => `${text(p[0])} has a value that is not allowed.`,
  'error-invalid-number': (p) => `${text(p[0])} is not a valid number.`,
  'error-number-out-of-range': (p) => `${text(p[0])} must be a number between ${text(p[1])} and ${text(p[2])}.`,
  'error-user-attribute-required': (p) => `${text(p[0])} is required.`,
  'error-invalid-multivalued-size': (p) => `${text(p[0])} must have at least ${text(p[1])} and at most ${text(p[2])} value(s).`,
};

/** The words for a user-profile message key and its parameters; the key itself when it has none. */
export function validationMessage(key: string, params: Params = []): string {
  const f = MESSAGES[key];
  return f ? f(params) : key;
}
