import type { Page } from '../services/login/flow-engine';

/**
 * The registration page (Keycloak's register.ftl, in this server's plain layout): the realm's
 * user-profile fields, the password pair and the terms checkbox when their form actions are enabled,
 * each error next to its field (aria-describedby), and "Back to Login". No script needed, unless
 * the realm enables reCAPTCHA (Google's widget is a script).
 */
export const REGISTER_TEMPLATE = `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('registerTitle') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<form id="kc-register-form" method="post" action="<%= it.formAction %>">
<%~ include('@profile-fields', it) %>
<% if (it.password) { %>
<label for="password"><%= it.t('password') %> *</label>
<input id="password" name="password" type="password" autocomplete="new-password" required<%= it.errors.password ? ' aria-invalid=true aria-describedby=input-error-password' : '' %>>
<% if (it.errors.password) { %><span class="field-error" id="input-error-password" role="alert"><%= it.errors.password %></span><% } %>
<label for="password-confirm"><%= it.t('passwordConfirm') %> *</label>
<input id="password-confirm" name="password-confirm" type="password" autocomplete="new-password" required<%= it.errors['password-confirm'] ? ' aria-invalid=true aria-describedby=input-error-password-confirm' : '' %>>
<% if (it.errors['password-confirm']) { %><span class="field-error" id="input-error-password-confirm" role="alert"><%= it.errors['password-confirm'] %></span><% } %>
<% } %>
<% if (it.terms) { %>
<div id="kc-terms-text"><%= it.t('termsText') %></div>
<p><input type="checkbox" id="termsAccepted" name="termsAccepted" value="on" required<%= it.errors.termsAccepted ? ' aria-invalid=true aria-describedby=input-error-terms-accepted' : '' %>>
<label for="termsAccepted" style="display:inline"><%= it.t('acceptTerms') %></label></p>
<% if (it.errors.termsAccepted) { %><span class="field-error" id="input-error-terms-accepted" role="alert"><%= it.errors.termsAccepted %></span><% } %>
<% } %>
<% if (it.recaptcha && !it.recaptcha.v3) { %><div class="g-recaptcha" data-size="normal" data-sitekey="<%= it.recaptcha.siteKey %>" data-action="<%= it.recaptcha.action %>"></div>
<script src="<%= it.recaptcha.scriptUrl %>?hl=<%= it.locale %>" async defer></script><% } %>
<% if (it.recaptcha && it.recaptcha.v3) { %><script src="<%= it.recaptcha.scriptUrl %>?hl=<%= it.locale %>" async defer></script>
<script>function onSubmitRecaptcha(){document.getElementById('kc-register-form').requestSubmit();}</script>
<button type="submit" id="kc-register" class="g-recaptcha" data-sitekey="<%= it.recaptcha.siteKey %>" data-callback="onSubmitRecaptcha" data-action="<%= it.recaptcha.action %>"><%= it.t('doRegister') %></button>
<% } else { %><button type="submit" id="kc-register"><%= it.t('doRegister') %></button><% } %>
</form>
<% if (it.loginUrl) { %><p id="kc-form-options"><a id="kc-back-to-login" href="<%= it.loginUrl %>"><%= it.t('backToLogin') %></a></p><% } %>`;

/**
 * The user-profile fields of the update-profile and register forms (Keycloak's user-profile-commons.ftl):
 * a select for `options` (a multiselect, or checkboxes by the `multiselect-checkboxes` annotation, for
 * a multi-valued attribute), else one input per value of a multi-valued attribute, each with a
 * "Remove" button and an "Add" button after them: submit buttons (formnovalidate) that show the form
 * again, so no script is needed; a hidden plain submit button comes first, so that Enter in a field
 * submits the form rather than pressing the first "Remove". Read-only fields are shown, not posted.
 */
export const PROFILE_FIELDS_TEMPLATE = `<% if (it.fields.some((f) => f.multivalued && !f.readOnly)) { %>
<button type="submit" class="default-submit" tabindex="-1" aria-hidden="true"></button>
<% } %>
<% for (const f of it.fields) { %>
<% const invalid = f.error ? ' aria-invalid=true aria-describedby=input-error-' + f.name : '' %>
<% const multi = f.inputType === 'multiselect' || f.inputType === 'multiselect-checkboxes' %>
<% if (f.inputType === 'multiselect-checkboxes' && f.options) { %>
<fieldset id="<%= f.name %>"><legend><%= f.label %><%= f.required ? ' *' : '' %></legend>
<% f.options.forEach((o, i) => { %><p><input type="checkbox" id="<%= f.name %>-<%= i %>" name="<%= f.name %>" value="<%= o %>"<%= (f.values ?? []).includes(o) ? ' checked' : '' %><%= f.readOnly ? ' disabled' : '' %><%= invalid %>>
<label for="<%= f.name %>-<%= i %>" style="display:inline"><%= o %></label></p><% }) %>
</fieldset>
<% } else { %>
<label for="<%= f.name %>"><%= f.label %><%= f.required ? ' *' : '' %></label>
<% if (f.options && (!f.readOnly || multi)) { %>
<select id="<%= f.name %>" name="<%= f.name %>"<%= multi ? ' multiple' : '' %><%= f.readOnly ? ' disabled' : '' %><%= f.required ? ' required' : '' %><%= invalid %>>
<% if (!multi) { %><option value=""></option><% } %>
<% for (const o of f.options) { %><option value="<%= o %>"<%= (multi ? (f.values ?? []).includes(o) : o === f.value) ? ' selected' : '' %>><%= o %></option><% } %>
</select>
<% } else if (f.multivalued) { %>
<% f.values.forEach((v, i) => { %><div class="multivalued" id="<%= f.name %>-value-<%= i %>"><input id="<%= i ? f.name + '-' + i : f.name %>"<% if (!f.readOnly) { %> name="<%= f.name %>"<% } %> type="text" value="<%= v %>" aria-label="<%= f.label %>"<%= f.readOnly ? ' readonly' : '' %><%= f.required && !i ? ' required' : '' %><%= invalid %>>
<% if (!f.readOnly) { %><button type="submit" class="link" name="kc-remove-value" value="<%= f.name %>:<%= i %>" formnovalidate><%= it.t('removeValue') %></button><% } %></div>
<% }) %>
<% if (!f.readOnly) { %><button type="submit" class="link" id="<%= f.name %>-add" name="kc-add-value" value="<%= f.name %>" formnovalidate><%= it.t('addValue', f.label) %></button><% } %>
<% } else { %>
<input id="<%= f.name %>" name="<%= f.name %>" type="<%= f.name === 'email' ? 'email' : 'text' %>" value="<%= f.value %>"<%= f.autocomplete ? ' autocomplete=' + f.autocomplete : '' %><%= f.readOnly ? ' readonly' : '' %><%= f.required ? ' required' : '' %><%= invalid %>>
<% } %>
<% } %>
<% if (f.error) { %><span class="field-error" id="input-error-<%= f.name %>" role="alert"><%= f.error %></span><% } %>
<% } %>`;

type Text = (key: string, ...params: string[]) => string;

/** The page's own messages (password, confirmation, terms) as text. */
export function registerErrors(p: Extract<Page, { page: 'register' }>, t: Text): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, m] of Object.entries(p.errors)) out[name] = t(m.key, ...(m.params ?? []));
  return out;
}

/** A link of the same login (client and tab) to another login-actions path: "Register", "Back to Login". */
export function sameLoginLink(formAction: string | undefined, path: string): string | undefined {
  if (!formAction) return undefined;
  const u = new URL(formAction);
  const q = new URLSearchParams();
  for (const k of ['client_id', 'tab_id']) if (u.searchParams.get(k)) q.set(k, u.searchParams.get(k) as string);
  return `${u.pathname.replace(/\/login-actions\/[^/]+$/, `/login-actions/${path}`)}?${q}`;
}
