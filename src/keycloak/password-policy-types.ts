export type PolicyKind = 'int' | 'string' | 'none' | 'regex' | 'hash' | 'blacklist';

/** Policy types of Keycloak 26 (serverinfo `passwordPolicies`): config kind and default value. */
export const POLICY_TYPES: Record<string, { kind: PolicyKind; dflt: string | null }> = {
  digits: { kind: 'int', dflt: '1' },
  forceExpiredPasswordChange: { kind: 'int', dflt: '365' },
  hashAlgorithm: { kind: 'hash', dflt: 'argon2' },
  hashIterations: { kind: 'int', dflt: '-1' },
  passwordHistory: { kind: 'int', dflt: '3' },
  length: { kind: 'int', dflt: '8' },
  lowerCase: { kind: 'int', dflt: '1' },
  maxLength: { kind: 'int', dflt: '64' },
  notUsername: { kind: 'none', dflt: null },
  notContainsUsername: { kind: 'none', dflt: null },
  regexPattern: { kind: 'regex', dflt: '' },
  specialChars: { kind: 'int', dflt: '1' },
  upperCase: { kind: 'int', dflt: '1' },
  passwordBlacklist: { kind: 'blacklist', dflt: '' },
  notEmail: { kind: 'none', dflt: null },
  recoveryCodesWarningThreshold: { kind: 'int', dflt: '4' },
  maxAuthAge: { kind: 'int', dflt: '300' },
  passwordAge: { kind: 'int', dflt: '30' },
};
