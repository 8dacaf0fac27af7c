import { matchesRedirect, verifyRedirectUri } from '../../../src/services/login/redirect-uris';

/**
 * Redirect URIs as Keycloak 26's RedirectUtils.verifyRedirectUri matches them: the requested URI is
 * decoded and normalised before a wildcard entry is applied, so no encoding or dot segment walks out of
 * an allowed prefix, and only http(s) is answered to unless the entry names another scheme.
 */
const CB = ['http://app.example/cb/*'];

test('a wildcard entry is a prefix of the URI without its query, or the URI without its trailing slash', () => {
  expect(matchesRedirect('http://app.example/cb/page?x=1', CB)).toBe(true);
  expect(matchesRedirect('http://app.example/cb', CB)).toBe(true);
  expect(matchesRedirect('http://app.example/cbx', CB)).toBe(false);
  expect(matchesRedirect('http://APP.example/cb/page', CB)).toBe(true);
});

test('dot segments and encodings cannot walk out of the prefix', () => {
  for (const uri of [
    'http://app.example/cb/../evil',
    'http://app.example/cb/%2e%2e/evil',
    'http://app.example/cb/%2E%2E%2Fevil',
    'http://app.example/cb/%252e%252e/evil',
    'http://app.example/cb/..%2f..%2fevil',
  ]) {
    expect([uri, matchesRedirect(uri, CB)]).toEqual([uri, false]);
  }
  // An URI encoded over and over is refused rather than decoded without end.
  expect(matchesRedirect(`http://app.example/cb/${'%25'.repeat(6)}2e`, CB)).toBe(false);
});

test('an exact entry must be met exactly, query included; user info and fragments never pass', () => {
  expect(matchesRedirect('http://app.example/exact', ['http://app.example/exact'])).toBe(true);
  expect(matchesRedirect('http://app.example/exact?x=1', ['http://app.example/exact'])).toBe(false);
  expect(matchesRedirect('http://app.example', ['http://app.example'])).toBe(true);
  expect(matchesRedirect('http://user:pw@app.example/cb/x', CB)).toBe(false);
  expect(matchesRedirect('http://app.example/cb/x#frag', CB)).toBe(false);
  expect(matchesRedirect('not a uri', ['*'])).toBe(false);
});

test('only http(s) unless the entry names the scheme, even under a full wildcard', () => {
  expect(matchesRedirect('https://any.example/x', ['*'])).toBe(true);
  expect(matchesRedirect('javascript:alert(1)', ['*'])).toBe(false);
  expect(matchesRedirect('data:text/html,hi', ['*'])).toBe(false);
  expect(matchesRedirect('myapp:/callback', ['myapp:/callback'])).toBe(true);
  expect(matchesRedirect('com.example.app:/oauth/cb', ['com.example.app:/*'])).toBe(true);
  expect(matchesRedirect('myapp:/callback', ['http://app.example/*'])).toBe(false);
});

test('the answer goes to the normal form of the URI that matched', () => {
  expect(verifyRedirectUri('http://APP.example/cb/a/./b?x=1', CB, true)).toBe('http://app.example/cb/a/b?x=1');
  expect(verifyRedirectUri('http://app.example', ['http://app.example'], true)).toBe('http://app.example');
  expect(verifyRedirectUri('http://app.example/cb/../evil', CB, true)).toBeUndefined();
  // Without redirect_uri: only a non-OpenID request, and only to the client's single exact entry.
  expect(verifyRedirectUri(undefined, ['http://app.example/only'], false)).toBe('http://app.example/only');
  expect(verifyRedirectUri(undefined, ['http://app.example/only'], true)).toBeUndefined();
  expect(verifyRedirectUri(undefined, CB, false)).toBeUndefined();
});
