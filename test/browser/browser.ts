/**
 * The browser of the browser tests: Debian's Chromium (`apt-get install chromium`), or the one in
 * IDSERVER_TEST_BROWSER. Without it the suites are skipped with a warning, except where
 * IDSERVER_REQUIRE_BROWSER is set (CI installs Chromium and sets it, so a missing browser fails there).
 */
export const BROWSER = process.env.IDSERVER_TEST_BROWSER ?? '/usr/bin/chromium';

export function browserMissing(): void {
  const message = `${BROWSER} not found: browser tests skipped (install Debian's chromium, or set IDSERVER_TEST_BROWSER)`;
  if (process.env.IDSERVER_REQUIRE_BROWSER) throw new Error(message);
  console.warn(message);
}
