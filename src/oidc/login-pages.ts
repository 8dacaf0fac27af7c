import { Eta } from 'eta';
import type { RealmModel } from '../db/models/realm';
import type { Page } from '../services/login/flow-engine';
import type { BrowserResponse } from '../services/login/login';
import { format } from '../services/login/messages';
import { PROFILE_FIELDS_TEMPLATE, REGISTER_TEMPLATE, registerErrors, sameLoginLink } from './register-page';

/**
 * The login pages, server-rendered with Eta (autoEscape on: every value is HTML-escaped unless a
 * template says otherwise, and none of these does for user or realm data). Plain HTML forms with
 * labels and autocomplete attributes; no script is needed (form_post's auto-submit has a button
 * fallback). Texts come from the catalogue (src/services/login/messages.ts) through `t`.
 */
const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });

eta.loadTemplate(
  '@layout',
  `<!DOCTYPE html>
<html lang="<%= it.locale %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title><%= it.title %></title>
<style>
body{font-family:system-ui,sans-serif;background:#f3f4f6;margin:0;color:#111}
main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.2)}
h1{font-size:1.4rem;margin-top:0}.realm{color:#555;font-size:.95rem;margin:0 0 1rem}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=text],input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;font-size:1rem;border:1px solid #888;border-radius:.25rem}
button{margin-top:1.25rem;width:100%;padding:.65rem;font-size:1rem;background:#0b5cad;color:#fff;border:0;border-radius:.25rem;cursor:pointer}
.field-error{display:block;color:#c62828;font-size:.9rem;margin-top:.25rem}
input[readonly]{background:#eee}
.multivalued{display:flex;gap:.5rem;align-items:center;margin-bottom:.35rem}
button.link{width:auto;margin-top:0;padding:.3rem .5rem;background:none;color:#0b5cad;text-decoration:underline}
.default-submit{position:absolute;left:-10000px}
.alert{padding:.75rem;border-radius:.25rem;background:#fdecea;border:1px solid #c62828;margin-bottom:1rem}
.info{background:#e8f1fb;border-color:#0b5cad}
nav.locales{margin-top:1.5rem;font-size:.9rem}nav.locales a{margin-right:.5rem}
</style>
</head>
<body>
<main>
<p class="realm" id="realm-name"><%= it.realmName %></p>
<%~ it.body %>
<% if (it.locales.length > 1 && it.localeLink) { %>
<nav class="locales" aria-label="<%= it.t('languageLabel') %>">
<% for (const l of it.locales) { %><a href="<%= it.localeLink(l) %>" lang="<%= l %>"<%= l === it.locale ? ' aria-current=true' : '' %>><%= l %></a><% } %>
</nav>
<% } %>
</main>
</body>
</html>`,
);

eta.loadTemplate(
  '@login',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('loginAccountTitle') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<form id="kc-form-login" method="post" action="<%= it.formAction %>">
<% if (it.variant !== 'password') { %>
<label for="username"><%= it.t(it.loginWithEmail ? 'usernameOrEmail' : 'username') %></label>
<input id="username" name="username" type="text" value="<%= it.username ?? '' %>" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus<%= it.message ? ' aria-invalid=true aria-describedby=input-error' : '' %>>
<% } else { %>
<p id="kc-attempted-username"><%= it.username ?? '' %></p>
<input type="hidden" name="username" value="<%= it.username ?? '' %>" autocomplete="username">
<% } %>
<% if (it.variant !== 'username') { %>
<label for="password"><%= it.t('password') %></label>
<input id="password" name="password" type="password" autocomplete="current-password" required<%= it.variant === 'password' ? ' autofocus' : '' %><%= it.message ? ' aria-invalid=true aria-describedby=input-error' : '' %>>
<% } %>
<button type="submit" id="kc-login" name="login"><%= it.t(it.variant === 'username' ? 'doContinue' : 'doLogIn') %></button>
</form>
<% if (it.resetUrl) { %><p><a id="kc-forgot-password" href="<%= it.resetUrl %>"><%= it.t('doForgotPassword') %></a></p><% } %>
<% if (it.registerUrl) { %><p id="kc-registration"><%= it.t('noAccount') %> <a id="kc-register-link" href="<%= it.registerUrl %>"><%= it.t('doRegister') %></a></p><% } %>
<% if (it.providers && it.providers.length) { %>
<section id="kc-social-providers"><h2><%= it.t('identity-provider-login-label') %></h2>
<ul><% for (const p of it.providers) { %><li><a id="social-<%= p.alias %>" href="<%= p.url %>"><%= p.displayName %></a></li><% } %></ul>
</section>
<% } %>`,
);

eta.loadTemplate(
  '@confirm-link',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('confirmLinkIdpTitle') %></h1>
<div class="alert info" role="status"><p id="kc-info-message"><%= it.message %></p></div>
<form id="kc-register-form" method="post" action="<%= it.formAction %>">
<button type="submit" id="updateProfile" name="submitAction" value="updateProfile"><%= it.t('confirmLinkIdpReviewProfile') %></button>
<button type="submit" id="linkAccount" name="submitAction" value="linkAccount"><%= it.t('confirmLinkIdpContinue', it.existing) %></button>
</form>`,
);

eta.loadTemplate(
  '@select-organization',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('loginAccountTitle') %></h1>
<form id="kc-user-organizations" method="post" action="<%= it.formAction %>">
<p><%= it.t('organization.select') %></p>
<% for (const o of it.organizations) { %><button type="submit" id="organization-<%= o.alias %>" name="kc.org" value="<%= o.alias %>"><%= o.name %></button>
<% } %>
</form>`,
);

eta.loadTemplate('@register', REGISTER_TEMPLATE);
eta.loadTemplate('@profile-fields', PROFILE_FIELDS_TEMPLATE);

eta.loadTemplate(
  '@error',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('errorTitle') %></h1>
<div class="alert" role="alert"><p id="kc-error-message"><%= it.message %></p></div>`,
);

eta.loadTemplate(
  '@info',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.heading %></h1>
<div class="alert info" role="status"><p id="kc-info-message"><%= it.message %></p></div>
<% if (it.actionUrl) { %><p><a id="proceedWithAction" href="<%= it.actionUrl %>"><%= it.t('proceedWithAction') %></a></p><% } %>
<% if (it.backUrl) { %><p><a id="backToApplication" href="<%= it.backUrl %>"><%= it.t('backToApplication') %></a></p><% } %>`,
);

eta.loadTemplate(
  '@logout-confirm',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('logoutConfirmTitle') %></h1>
<p><%= it.t('logoutConfirmHeader') %></p>
<form id="kc-logout-confirm" method="post" action="<%= it.action %>">
<% for (const [k, v] of Object.entries(it.fields)) { %><input type="hidden" name="<%= k %>" value="<%= v %>">
<% } %><button type="submit" id="kc-logout" name="confirmLogout"><%= it.t('doLogout') %></button>
</form>`,
);

eta.loadTemplate(
  '@update-password',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('updatePasswordTitle') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<form id="kc-passwd-update-form" method="post" action="<%= it.formAction %>">
<input type="text" id="username" name="username" value="<%= it.username %>" autocomplete="username" readonly hidden>
<label for="password-new"><%= it.t('passwordNew') %></label>
<input id="password-new" name="password-new" type="password" autocomplete="new-password" required autofocus<%= it.message ? ' aria-invalid=true aria-describedby=input-error' : '' %>>
<label for="password-confirm"><%= it.t('passwordConfirm') %></label>
<input id="password-confirm" name="password-confirm" type="password" autocomplete="new-password" required>
<button type="submit" id="kc-submit"><%= it.t('doSubmit') %></button>
<% if (it.cancelable) { %><button type="submit" id="cancelAIABtn" name="cancel-aia" value="true" formnovalidate><%= it.t('doCancel') %></button><% } %>
</form>`,
);

eta.loadTemplate(
  '@terms',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('termsTitle') %></h1>
<div id="kc-terms-text"><%= it.t('termsText') %></div>
<form id="kc-terms-form" method="post" action="<%= it.formAction %>">
<button type="submit" id="kc-accept" name="accept" value="accept"><%= it.t('doAccept') %></button>
<button type="submit" id="kc-decline" name="cancel" value="cancel"><%= it.t('doDecline') %></button>
</form>`,
);

eta.loadTemplate(
  '@totp-setup',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('loginTotpTitle') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<ol>
<li><p><%= it.t('loginTotpStep1') %></p></li>
<li><p><%= it.t('loginTotpScanBarcode') %></p><p><img id="kc-totp-secret-qr-code" src="<%= it.qr %>" alt="<%= it.t('loginTotpQrAlt') %>" width="246" height="246"></p>
<p><%= it.t('loginTotpManualStep') %></p><p><code id="kc-totp-secret-key"><%= it.secret %></code></p>
<p><%= it.t('loginTotpUri') %> <a id="kc-totp-uri" href="<%= it.uri %>"><%= it.t('loginTotpTitle') %></a></p>
<ul><li>Type: <%= it.type %></li><li>Algorithm: <%= it.algorithm %></li><li>Digits: <%= it.digits %></li><li>Period: <%= it.period %></li></ul></li>
<li><p><%= it.t('loginTotpStep3') %></p></li>
</ol>
<form id="kc-totp-settings-form" method="post" action="<%= it.formAction %>">
<label for="totp"><%= it.t('loginTotpOneTime') %></label>
<input id="totp" name="totp" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus<%= it.message ? ' aria-invalid=true aria-describedby=input-error' : '' %>>
<label for="userLabel"><%= it.t('loginTotpDeviceName') %></label>
<input id="userLabel" name="userLabel" type="text" autocomplete="off">
<button type="submit" id="saveTOTPBtn"><%= it.t('doSubmit') %></button>
<% if (it.cancelable) { %><button type="submit" id="cancelAIABtn" name="cancel-aia" value="true" formnovalidate><%= it.t('doCancel') %></button><% } %>
</form>`,
);

eta.loadTemplate(
  '@update-profile',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('loginProfileTitle') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<form id="kc-update-profile-form" method="post" action="<%= it.formAction %>">
<%~ include('@profile-fields', it) %>
<button type="submit" id="kc-submit"><%= it.t('doSubmit') %></button>
<% if (it.cancelable) { %><button type="submit" id="cancelAIABtn" name="cancel-aia" value="true" formnovalidate><%= it.t('doCancel') %></button><% } %>
</form>`,
);

eta.loadTemplate(
  '@delete-credential',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('deleteCredentialTitle', it.credentialLabel) %></h1>
<p id="kc-delete-text"><%= it.t('deleteCredentialMessage', it.credentialLabel) %></p>
<form id="kc-delete-credential-form" method="post" action="<%= it.formAction %>">
<button type="submit" id="kc-accept" name="accept" value="accept"><%= it.t('doConfirmDelete') %></button>
<button type="submit" id="kc-decline" name="cancel-aia" value="true"><%= it.t('doCancel') %></button>
</form>`,
);

eta.loadTemplate(
  '@reset-password',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('emailForgotTitle') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<form id="kc-reset-password-form" method="post" action="<%= it.formAction %>">
<label for="username"><%= it.t(it.loginWithEmail ? 'usernameOrEmail' : 'username') %></label>
<input id="username" name="username" type="text" value="<%= it.username ?? '' %>" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus<%= it.message ? ' aria-invalid=true aria-describedby=input-error' : '' %>>
<p id="kc-reset-instruction"><%= it.t('emailInstruction') %></p>
<button type="submit" id="kc-submit"><%= it.t('doSubmit') %></button>
</form>`,
);

eta.loadTemplate(
  '@verify-email',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('emailVerifyTitle') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<p id="kc-verify-email-instruction1"><%= it.t('emailVerifyInstruction1', it.email) %></p>
<form id="kc-verify-email-form" method="post" action="<%= it.formAction %>">
<p><%= it.t('emailVerifyInstruction2') %></p>
<button type="submit" id="kc-resend" name="resend" value="resend"><%= it.t('emailVerifyResend') %></button>
</form>`,
);

eta.loadTemplate(
  '@otp',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('loginAccountTitle') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<form id="kc-otp-login-form" method="post" action="<%= it.formAction %>">
<label for="otp"><%= it.t('loginOtpOneTime') %></label>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus<%= it.message ? ' aria-invalid=true aria-describedby=input-error' : '' %>>
<button type="submit" id="kc-login" name="login"><%= it.t('doLogInOtp') %></button>
</form>`,
);

eta.loadTemplate(
  '@consent',
  `<% layout('@layout') %>
<% if (it.logoUri) { %><img id="kc-client-logo" src="<%= it.logoUri %>" alt=""><% } %>
<h1 id="kc-page-title"><%= it.title %></h1>
<div id="kc-oauth-grant">
<p><%= it.t('oauthGrantRequest') %></p>
<ul id="kc-oauth-scopes">
<% for (const line of it.lines) { %><li><span><%= line %></span></li>
<% } %></ul>
<% if (it.tosUri || it.policyUri) { %><p id="kc-oauth-client-info"><%= it.t('oauthGrantInformation', it.clientName) %>
<% if (it.tosUri) { %> <%= it.t('oauthGrantReview') %><a id="kc-client-tos" href="<%= it.tosUri %>" target="_blank" rel="noopener noreferrer"><%= it.t('oauthGrantTos') %></a><% } %>
<% if (it.policyUri) { %> <%= it.t('oauthGrantReview') %><a id="kc-client-policy" href="<%= it.policyUri %>" target="_blank" rel="noopener noreferrer"><%= it.t('oauthGrantPolicy') %></a><% } %></p><% } %>
<form id="kc-oauth" method="post" action="<%= it.formAction %>">
<button type="submit" id="kc-login" name="accept" value="yes"><%= it.t('doYes') %></button>
<button type="submit" id="kc-cancel" name="cancel" value="no"><%= it.t('doNo') %></button>
</form>
</div>`,
);

eta.loadTemplate(
  '@frontchannel-logout',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('frontchannel-logout.title') %></h1>
<p><%= it.t('frontchannel-logout.message') %></p>
<ul id="kc-frontchannel-apps">
<% for (const app of it.apps) { %><li><%= app.name %><iframe src="<%= app.url %>" title="<%= app.name %>" hidden></iframe></li>
<% } %></ul>
<% if (it.redirect) { %><p><a id="continue" href="<%= it.redirect %>"><%= it.t('doContinue') %></a></p>
<script>document.addEventListener('readystatechange',function(){if(document.readyState==='complete'){window.location.replace(document.getElementById('continue').href);}});</script>
<% } else { %><p id="kc-info-message"><%= it.t('loggedOutMessage') %></p><% } %>`,
);

eta.loadTemplate(
  '@otp-reset',
  `<% layout('@layout') %>
<h1 id="kc-page-title"><%= it.t('otp-reset-description') %></h1>
<% if (it.message) { %><div class="alert" role="alert" id="input-error"><%= it.message %></div><% } %>
<form id="kc-otp-reset-form" method="post" action="<%= it.formAction %>">
<fieldset><legend><%= it.t('otp-reset-description') %></legend>
<% it.credentials.forEach((c, i) => { %><label><input type="radio" name="selectedCredentialId" value="<%= c.id %>"<%= i === 0 ? ' checked' : '' %>> <%= c.label %></label>
<% }) %></fieldset>
<button type="submit" id="kc-otp-reset-form-submit"><%= it.t('doSubmit') %></button>
</form>`,
);

eta.loadTemplate(
  '@form-post',
  `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Submit This Form</title></head>
<body onload="document.forms[0].submit()">
<form method="post" action="<%= it.action %>">
<% for (const [k, v] of Object.entries(it.fields)) { %><input type="hidden" name="<%= k %>" value="<%= v %>">
<% } %><noscript><p>JavaScript is disabled. Select Continue to go back to the application.</p></noscript>
<button type="submit">Continue</button>
</form>
</body></html>`,
);

/** The realm's name as its pages show it: displayName, else displayNameHtml as text (tags dropped), else its name. */
export function realmDisplayName(realm: RealmModel | undefined): string {
  if (!realm) return '';
  const plain = realm.settings.displayName;
  if (typeof plain === 'string' && plain.trim()) return plain;
  const html = realm.settings.displayNameHtml;
  if (typeof html === 'string' && html.trim()) {
    const text = html
      .replace(/<[^>]*>/g, '')
      .replace(/&nbsp;/g, ' ')
      .trim();
    if (text) return text;
  }
  return realm.name;
}

const on = (v: unknown) => v === true || v === 'true';

/** "Forgot password?" of a login form, when the realm allows resets: the same login (client and tab) starts the reset flow. */
function resetLink(out: Extract<BrowserResponse, { kind: 'page' }>): string | undefined {
  return on(out.realm?.settings.resetPasswordAllowed) ? sameLoginLink(out.formAction, 'reset-credentials') : undefined;
}

/** "New user? Register" of the first login form, when the realm's registrationAllowed is on (Keycloak's login.ftl). */
function registerLink(out: Extract<BrowserResponse, { kind: 'page' }>, variant: string): string | undefined {
  return on(out.realm?.settings.registrationAllowed) && variant !== 'password' ? sameLoginLink(out.formAction, 'registration') : undefined;
}

type Text = (key: string, ...params: string[]) => string;

/** Profile fields as text: labels, and validation messages naming the field by its label ({0}). */
function fieldsView(fields: Extract<Page, { page: 'register' }>['fields'], t: Text) {
  const msg = (m: { key: string; params?: string[] }) => t(m.key, ...(m.params ?? []));
  return fields.map((f) => {
    const label = msg(f.label);
    const error = f.error ? t(f.error.key, label, ...(f.error.params ?? []).slice(1)) : undefined;
    return { ...f, label, error, autocomplete: AUTOCOMPLETE[f.name] };
  });
}

const AUTOCOMPLETE: Record<string, string> = { username: 'username', email: 'email', firstName: 'given-name', lastName: 'family-name' };

/** The HTML of a page response, and its status. */
export function renderPage(
  out: Extract<BrowserResponse, { kind: 'page' }>,
  localeLink?: (locale: string) => string,
): { status: number; html: string } {
  const t = (key: string, ...params: string[]) => format(out.texts, key, params);
  const base = {
    t,
    locale: out.locale,
    locales: out.locales,
    localeLink,
    realmName: realmDisplayName(out.realm),
    loginWithEmail: out.realm?.settings.loginWithEmailAllowed !== false,
  };
  const p = out.page;
  switch (p.page) {
    case 'login':
      return {
        status: p.status ?? 200,
        html: eta.render('@login', {
          ...base,
          title: t('loginTitle', realmDisplayName(out.realm)),
          variant: p.variant,
          username: p.username,
          message: p.message ? t(p.message.key, ...(p.message.params ?? [])) : undefined,
          formAction: out.formAction,
          resetUrl: resetLink(out),
          // An unknown user of an organization with public providers registers through one of them (Keycloak's OrganizationAwareRealmBean).
          registerUrl: p.organizationId ? undefined : registerLink(out, p.variant),
          providers: out.providers,
        }),
      };
    case 'error':
      return {
        status: p.status,
        html: eta.render('@error', { ...base, title: t('errorTitle'), message: t(p.message.key, ...(p.message.params ?? [])) }),
      };
    case 'info': {
      const heading = t(p.title.key, ...(p.title.params ?? []));
      return {
        status: p.status,
        html: eta.render('@info', {
          ...base,
          title: heading,
          heading,
          message: t(p.message.key, ...(p.message.params ?? [])),
          backUrl: p.backUrl,
          actionUrl: 'actionUrl' in p ? p.actionUrl : undefined,
        }),
      };
    }
    case 'update-password':
    case 'terms':
    case 'totp-setup':
    case 'verify-email':
    case 'reset-password':
    case 'otp-reset':
    case 'otp': {
      const titles = {
        'otp-reset': 'otp-reset-description',
        'update-password': 'updatePasswordTitle',
        terms: 'termsTitle',
        'totp-setup': 'loginTotpTitle',
        'verify-email': 'emailVerifyTitle',
        'reset-password': 'emailForgotTitle',
        otp: 'loginAccountTitle',
      };
      const { page, status, message, ...rest } = p as typeof p & { message?: { key: string; params?: string[] } };
      return {
        status: status ?? 200,
        html: eta.render(`@${page}`, {
          ...base,
          ...rest,
          title: t(titles[page]),
          message: message ? t(message.key, ...(message.params ?? [])) : undefined,
          formAction: out.formAction,
        }),
      };
    }
    case 'register':
      return {
        status: p.status ?? 200,
        html: eta.render('@register', {
          ...base,
          title: t('registerTitle'),
          fields: fieldsView(p.fields, t),
          password: p.password,
          terms: p.terms,
          errors: registerErrors(p, t),
          recaptcha: p.recaptcha,
          message: p.message ? t(p.message.key, ...(p.message.params ?? [])) : undefined,
          formAction: out.formAction,
          loginUrl: sameLoginLink(out.formAction, 'authenticate'),
        }),
      };
    case 'update-profile': {
      const msg = (m: { key: string; params?: string[] }) => t(m.key, ...(m.params ?? []));
      const fields = fieldsView(p.fields, t);
      return {
        status: p.status ?? 200,
        html: eta.render('@update-profile', {
          ...base,
          title: t('loginProfileTitle'),
          fields,
          cancelable: p.cancelable,
          message: p.message ? msg(p.message) : undefined,
          formAction: out.formAction,
        }),
      };
    }
    case 'delete-credential':
      return {
        status: p.status ?? 200,
        html: eta.render('@delete-credential', {
          ...base,
          title: t('deleteCredentialTitle', p.credentialLabel),
          credentialLabel: p.credentialLabel,
          formAction: out.formAction,
        }),
      };
    case 'consent': {
      // A `${key}` text is a message key of the realm's texts (Keycloak's advancedMsg); anything else is shown as written.
      const advanced = (text: string) => {
        const m = /^\$\{(.+)\}$/.exec(text);
        return m ? t(m[1]) : text;
      };
      // Keycloak's login-oauth-grant: "Grant Access to {name}", the scopes' lines (the client's own first), its logo, terms and policy links.
      const clientName = advanced(p.clientName);
      const title = t('oauthGrantTitle', clientName);
      return {
        status: p.status ?? 200,
        html: eta.render('@consent', {
          ...base,
          title,
          clientName,
          tosUri: p.client?.tosUri,
          policyUri: p.client?.policyUri,
          logoUri: p.client?.logoUri,
          lines: p.scopes.map((l) => advanced(l.text)),
          formAction: out.formAction,
        }),
      };
    }
    case 'frontchannel-logout':
      return {
        status: p.status,
        html: eta.render('@frontchannel-logout', { ...base, title: t('frontchannel-logout.title'), apps: p.apps, redirect: p.redirect }),
      };
    case 'confirm-link':
      return {
        status: p.status ?? 200,
        html: eta.render('@confirm-link', {
          ...base,
          title: t('confirmLinkIdpTitle'),
          message: t(p.message.key, ...(p.message.params ?? [])),
          existing: p.message.params?.[0] ?? '',
          formAction: out.formAction,
        }),
      };
    case 'select-organization':
      return {
        status: p.status ?? 200,
        html: eta.render('@select-organization', {
          ...base,
          title: t('loginAccountTitle'),
          organizations: p.organizations,
          formAction: out.formAction,
        }),
      };
    case 'redirect':
      return { status: 500, html: eta.render('@error', { ...base, title: t('errorTitle'), message: t('internalServerErrorMessage') }) };
    case 'logout-confirm':
      return {
        status: p.status,
        html: eta.render('@logout-confirm', { ...base, title: t('logoutConfirmTitle'), action: p.action, fields: p.fields }),
      };
  }
}

/** The auto-submitted form of response_mode=form_post. */
export function renderFormPost(action: string, fields: Record<string, string>): string {
  return eta.render('@form-post', { action, fields });
}

/** An error page for a request that has no realm to speak for (an unknown realm, a failure before one was read). */
export function renderBareError(status: number, message: string): { status: number; html: string } {
  const t = (key: string) => (key === 'errorTitle' ? 'We are sorry...' : key);
  return { status, html: eta.render('@error', { t, title: 'We are sorry...', locale: 'en', locales: [], realmName: '', message }) };
}
