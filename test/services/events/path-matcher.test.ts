// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { pathMatcher } from '../../../src/services/events/feed';

/**
 * The resourcePath filter of event subscriptions: `*` stands for any characters (also `/` and none),
 * everything else matches itself, as GET /admin-events matches it. It was a RegExp built from the
 * filter, which a long filter could make too large to compile (a 500-class failure).
 */
test('literal paths match themselves only; * matches any run of characters', () => {
  expect(pathMatcher(undefined)('anything')).toBe(true);
  expect(pathMatcher('users/1')('users/1')).toBe(true);
  expect(pathMatcher('users/1')('users/10')).toBe(false);
  const m = pathMatcher('users/*');
  expect([m('users/1'), m('users/1/groups/2'), m('users/'), m('groups/1'), m(undefined)]).toEqual([true, true, true, false, false]);
  const mid = pathMatcher('users/*/groups/*');
  expect([mid('users/1/groups/2'), mid('users/1/role-mappings'), mid('users//groups/')]).toEqual([true, false, true]);
  // Parts must not overlap: "ab*ba" does not match "aba".
  expect(pathMatcher('ab*ba')('aba')).toBe(false);
  expect(pathMatcher('ab*ba')('abba')).toBe(true);
  // Characters that mean something in a RegExp are plain here.
  expect(pathMatcher('a.(b)+*')('a.(b)+x')).toBe(true);
  expect(pathMatcher('a.(b)+*')('axbbx')).toBe(false);
});

test('a filter of 100,000 characters with many stars is answered, not refused', () => {
  const filter = `${'x*'.repeat(50_000)}`;
  expect(pathMatcher(filter)('x'.repeat(50_000))).toBe(true);
  expect(pathMatcher(filter)('y')).toBe(false);
});
