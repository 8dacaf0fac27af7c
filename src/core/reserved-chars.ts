import { errorC } from './errors';

/** Characters Keycloak's ReservedCharValidator refuses in names that become URL path segments (realm, alias, flow names). */
const RESERVED = /[:/?#@!$&()*+,;=[\]\\]/;

/** Keycloak's ReservedCharValidator: 400 `Character 'x' not allowed.` (anything but a string passes). */
export function checkReservedChars(value: unknown): void {
  if (typeof value !== 'string') return;
  const bad = value.match(RESERVED);
  if (bad) throw errorC(400, `Character '${bad[0]}' not allowed.`);
}
