/**
 * The clock of the session and brute-force rules. Tests move it instead of sleeping
 * (`clock.now = () => fixed`); production code never replaces it.
 */
export const clock = {
  /** Milliseconds since the epoch. */
  now: (): number => Date.now(),
};

/** Seconds since the epoch (session timestamps, notBefore, token iat). */
export const nowSeconds = (): number => Math.floor(clock.now() / 1000);
