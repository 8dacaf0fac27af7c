import { exchange, formAction, Jar, type LoginWorld, loginWorld, redirectParams, signIn } from './browser-client';

/**
 * Multi-valued user-profile attributes on the login's profile forms (UPDATE_PROFILE and the
 * registration form), as Keycloak 26's login theme (user-profile-commons.ftl: one input per value of
 * the attribute's name, posted as repeated fields; a multiselect for options) with the validators
 * applied per value (AbstractStringValidator), MultiValueValidator's size check and the attribute
 * permissions (view-only attributes are shown and never written). The "add" / "remove" controls are
 * submit buttons, so no script is needed.
 */
let w: LoginWorld;
const REALM = 'login-profile-mv';
const R = `/admin/realms/${REALM}`;

const htmlText = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
const fieldError = (html: string, name: string) => {
  const m = new RegExp(`id="input-error-${name}"[^>]*>([^<]*)<`).exec(html);
  return m ? htmlText(m[1]) : undefined;
};
/** The values of the inputs posted under `name`, in order. */
const inputValues = (html: string, name: string) =>
  [...html.matchAll(new RegExp(`<input [^>]*name="${name}"[^>]*>`, 'g'))].map((m) => htmlText(/value="([^"]*)"/.exec(m[0])?.[1] ?? ''));
const selected = (html: string, name: string) => {
  const select = new RegExp(`<select id="${name}" name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html);
  if (!select) throw new Error(`no select ${name}`);
  return {
    tag: select[0].slice(0, select[0].indexOf('>') + 1),
    values: [...select[1].matchAll(/value="([^"]*)" selected/g)].map((m) => m[1]),
  };
};
const attributesOf = async (id: string) =>
  ((await w.api.get(`${R}/users/${id}`).expect(200)).body.attributes ?? {}) as Record<string, string[]>;

beforeAll(async () => {
  w = await loginWorld(REALM, { registrationAllowed: true });
  const config = (await w.api.get(`${R}/users/profile`).expect(200)).body;
  config.attributes.push(
    {
      name: 'phones',
      displayName: 'Phones',
      multivalued: true,
      validations: { length: { min: 3, max: 10 }, multivalued: { max: 3 } },
      permissions: { view: ['admin', 'user'], edit: ['admin', 'user'] },
    },
    {
      name: 'tags',
      displayName: 'Tags',
      multivalued: true,
      validations: { options: { options: ['red', 'green', 'blue'] } },
      permissions: { view: ['admin', 'user'], edit: ['admin', 'user'] },
    },
    { name: 'badges', displayName: 'Badges', multivalued: true, permissions: { view: ['admin', 'user'], edit: ['admin'] } },
  );
  await w.api.put(`${R}/users/profile`, config).expect(200);
});
afterAll(() => w?.ts.close());

test('UPDATE_PROFILE: values of a multi-valued attribute added, changed and removed; per-value errors; a view-only one untouched', async () => {
  const user = (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
  await w.api
    .put(`${R}/users/${w.userId}`, {
      ...user,
      attributes: { phones: ['111', '222'], tags: ['red'], badges: ['gold', 'silver'] },
      requiredActions: ['UPDATE_PROFILE'],
    })
    .expect(204);
  const jar = new Jar();
  const res = await signIn(jar, w.authUrl());
  expect(res.status).toBe(200);
  let html = await res.text();
  // One input per value, each with "Remove", and "Add Phones"; the options as a multiselect.
  expect(inputValues(html, 'phones')).toEqual(['111', '222']);
  expect(html).toContain('name="kc-remove-value" value="phones:1"');
  expect(html).toContain('name="kc-add-value" value="phones" formnovalidate>Add Phones</button>');
  // Enter in a field presses the form's first submit button: a plain submit, not the first "Remove".
  expect(/<form[^>]*>\s*(<button[^>]*>)/.exec(html)?.[1]).toBe(
    '<button type="submit" class="default-submit" tabindex="-1" aria-hidden="true">',
  );
  expect(selected(html, 'tags')).toMatchObject({ values: ['red'] });
  expect(selected(html, 'tags').tag).toContain(' multiple');
  // View-only: shown read-only, not posted, no controls.
  expect(html).toMatch(/<input id="badges" type="text" value="gold"[^>]* readonly/);
  expect(html).toMatch(/<input id="badges-1" type="text" value="silver"/);
  expect(inputValues(html, 'badges')).toEqual([]);
  expect(html).not.toContain('value="badges"');

  const base: Array<[string, string]> = [
    ['email', 'alice@example.org'],
    ['firstName', 'Alice'],
    ['lastName', 'Liddell'],
  ];
  // "Add": the form again with one more, empty input; nothing saved.
  let post = await jar.post(formAction(html), [...base, ['phones', '111'], ['phones', '222'], ['tags', 'red'], ['kc-add-value', 'phones']]);
  expect(post.status).toBe(200);
  html = await post.text();
  expect(inputValues(html, 'phones')).toEqual(['111', '222', '']);
  expect(html).toContain('id="phones-2"');
  // "Remove" of the first: the others stay as typed.
  post = await jar.post(formAction(html), [
    ...base,
    ['phones', '111'],
    ['phones', '222'],
    ['phones', '333'],
    ['kc-remove-value', 'phones:0'],
  ]);
  expect(post.status).toBe(200);
  html = await post.text();
  expect(inputValues(html, 'phones')).toEqual(['222', '333']);
  expect((await attributesOf(w.userId)).phones).toEqual(['111', '222']);

  // Each value is validated: one too short fails the form, the values stay as typed.
  post = await jar.post(formAction(html), [...base, ['phones', '222'], ['phones', '9'], ['tags', 'red']]);
  expect(post.status).toBe(400);
  html = await post.text();
  expect(fieldError(html, 'phones')).toBe('Length must be between 3 and 10.');
  expect(inputValues(html, 'phones')).toEqual(['222', '9']);
  // An option not in the list, and more values than the multivalued validator's max.
  post = await jar.post(formAction(html), [
    ...base,
    ...(['101', '202', '303', '404'].map((v) => ['phones', v]) as Array<[string, string]>),
    ['tags', 'red'],
    ['tags', 'purple'],
  ]);
  expect(post.status).toBe(400);
  html = await post.text();
  expect(fieldError(html, 'phones')).toBe('Attribute Phones must have at least 0 and at most 3 value(s).');
  expect(fieldError(html, 'tags')).toBe('Invalid value.');
  expect(await attributesOf(w.userId)).toMatchObject({ phones: ['111', '222'], tags: ['red'], badges: ['gold', 'silver'] });

  // Saved: one changed, one removed, one added (a blank input is dropped); the view-only one posted anyway is ignored.
  post = await jar.post(formAction(html), [
    ...base,
    ['phones', '222'],
    ['phones', '3333'],
    ['phones', ''],
    ['phones', '444'],
    ['tags', 'green'],
    ['tags', 'blue'],
    ['badges', 'hacked'],
  ]);
  expect(post.status).toBe(302);
  expect((await exchange(w, redirectParams(post).get('code') as string)).status).toBe(200);
  const after = await attributesOf(w.userId);
  expect(after.phones).toEqual(['222', '3333', '444']);
  expect(after.tags).toEqual(['green', 'blue']);
  expect(after.badges).toEqual(['gold', 'silver']);
  const events = (await w.api.get(`${R}/events?type=UPDATE_PROFILE&max=10`).expect(200)).body as Array<{
    details?: Record<string, string>;
  }>;
  expect(events[0].details).toMatchObject({ previous_phones: '111,222', updated_phones: '222,3333,444' });
});

test("the admin API applies the multivalued validator too (Keycloak's MultiValueValidator)", async () => {
  const user = (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
  const res = await w.api.put(`${R}/users/${w.userId}`, {
    ...user,
    attributes: { ...user.attributes, phones: ['101', '202', '303', '404'] },
  });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ field: 'phones', errorMessage: 'error-invalid-multivalued-size', params: ['phones', 0, 3] });
});

test('registration: a multi-valued attribute with several values, the add control and a per-value error; a view-only one is not written', async () => {
  const jar = new Jar();
  const login = await jar.fetch(w.authUrl());
  const link = /id="kc-register-link" href="([^"]+)"/.exec(await login.text())?.[1] as string;
  let html = await (await jar.fetch(`${w.base}${htmlText(link)}`)).text();
  expect(inputValues(html, 'phones')).toEqual(['']); // one empty input to start with
  expect(html).not.toContain('id="badges"'); // not editable by the user: not on the registration form
  const base: Array<[string, string]> = [
    ['username', 'mv-user'],
    ['email', 'mv-user@example.org'],
    ['firstName', 'New'],
    ['lastName', 'User'],
    ['password', 'Secret123'],
    ['password-confirm', 'Secret123'],
  ];
  let post = await jar.post(formAction(html), [...base, ['phones', '5551'], ['kc-add-value', 'phones']]);
  expect(post.status).toBe(200);
  html = await post.text();
  expect(inputValues(html, 'phones')).toEqual(['5551', '']);
  expect(html).not.toContain('input-error');

  post = await jar.post(formAction(html), [...base, ['phones', '5551'], ['phones', 'x'], ['tags', 'red']]);
  expect(post.status).toBe(200);
  html = await post.text();
  expect(fieldError(html, 'phones')).toBe('Length must be between 3 and 10.');
  expect((await w.api.get(`${R}/users?username=mv-user&exact=true`).expect(200)).body).toEqual([]);

  post = await jar.post(formAction(html), [
    ...base,
    ['phones', '5551'],
    ['phones', '5552'],
    ['tags', 'red'],
    ['tags', 'blue'],
    ['badges', 'forged'],
  ]);
  expect(post.status).toBe(302);
  const [created] = (await w.api.get(`${R}/users?username=mv-user&exact=true`).expect(200)).body;
  const attributes = await attributesOf(created.id);
  expect(attributes.phones).toEqual(['5551', '5552']);
  expect(attributes.tags).toEqual(['red', 'blue']);
  expect(attributes.badges).toBeUndefined();
});
