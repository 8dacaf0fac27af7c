/**
 * The GraphiQL page's own files (resolvers/graphiql.ts serves them with React, ReactDOM and GraphiQL
 * from the installed packages). Kept as strings so they ship with the compiled server. The page has
 * no inline script (its Content-Security-Policy allows scripts from the server only): app.js does
 * everything, reading what it needs from `location`.
 */

/** Where the page's assets are served, under /graphql. */
export const ASSET_PREFIX = '/graphql/graphiql/';

/** The HTML page: a token bar, the token flow explained, and the GraphiQL root. */
export const PAGE_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>idserver GraphQL</title>
<link rel="stylesheet" href="/graphql/graphiql/graphiql.min.css">
<link rel="stylesheet" href="/graphql/graphiql/app.css">
</head>
<body>
<header id="bar">
  <strong>idserver GraphQL</strong>
  <form id="signin" autocomplete="on">
    <label>Realm <input name="realm" value="master" size="8" required></label>
    <label>Client <input name="client" value="admin-cli" size="9" required></label>
    <label>User <input name="username" autocomplete="username" size="10" required></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" size="10" required></label>
    <button type="submit">Get token</button>
  </form>
  <span id="status" role="status">No token yet: get one here, or paste one into the Headers tab below.</span>
  <button id="copy" type="button" hidden>Copy token</button>
  <button id="signout" type="button" hidden>Forget token</button>
</header>
<details id="help">
  <summary>How do I authenticate?</summary>
  <p>Every GraphQL request needs the bearer access token of an admin, exactly as the admin REST API
  (<code>/admin/realms/...</code>) does. This page itself needs none, but the schema (the Docs pane,
  completion) and every query are fetched with the token.</p>
  <ol>
    <li><b>Get token</b> above asks the realm's token endpoint for one with the password grant, keeps it
    in this tab only (never stored) and renews it with the refresh token before it expires. The
    token then replaces the <code>&lt;paste token&gt;</code> placeholder of the Headers tab.</li>
    <li>Or get a token yourself and paste it into the <b>Headers</b> tab, in place of
    <code>&lt;paste token&gt;</code>; a header you write there wins over the token of the form:
<pre>curl -s -d grant_type=password -d client_id=admin-cli \
  -d username=admin -d password=admin \
  <span class="origin">http://localhost:8080</span>/realms/master/protocol/openid-connect/token | jq -r .access_token</pre>
    Tokens of the master realm live 60 seconds by default (the realm's <code>accessTokenLifespan</code>);
    paste a fresh one when queries answer 401.</li>
    <li>After setting a token, re-fetch the schema (the arrows button in the left bar, or Shift-Ctrl-R)
    if the Docs pane still shows an error.</li>
  </ol>
  <p>The same from a shell:</p>
<pre>TOKEN=$(curl -s -d grant_type=password -d client_id=admin-cli -d username=admin -d password=admin \
  <span class="origin">http://localhost:8080</span>/realms/master/protocol/openid-connect/token | jq -r .access_token)
curl -s <span class="origin">http://localhost:8080</span>/graphql -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' -d '{"query":"{ realms { name } }"}'</pre>
  <p>Subscriptions (<code>subscription { adminEvents(realm: "master") { time operationType resourcePath } }</code>)
  run over WebSocket (graphql-ws) at <code><span class="ws-origin">ws://localhost:8080</span>/graphql</code> with the
  same token, sent as the <code>Authorization</code> connection parameter; this page does that for you.
  Queries are checked against depth, alias and cost limits before they run; each response reports its
  cost in <code>extensions.cost</code>. Example operations live in <code>docs/graphql/</code> of the
  repository. This page is served by <code>idserver start-dev</code>, and by <code>start</code> only with
  <code>--graphql-ui=true</code>.</p>
</details>
<main id="graphiql">Loading GraphiQL...</main>
<script src="/graphql/graphiql/react.production.min.js"></script>
<script src="/graphql/graphiql/react-dom.production.min.js"></script>
<script src="/graphql/graphiql/graphiql.min.js"></script>
<script src="/graphql/graphiql/app.js"></script>
</body>
</html>
`;

/** The page's layout around GraphiQL. */
export const APP_CSS = `html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px; }
#bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 16px; padding: 6px 12px; border-bottom: 1px solid #d8d8de; background: #f6f7f9; }
#bar form { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; }
#bar label { display: flex; align-items: center; gap: 4px; }
#bar input { font: inherit; padding: 2px 4px; }
#bar button { font: inherit; cursor: pointer; }
#status { color: #555; }
#status.ok { color: #1a7f37; }
#status.error { color: #c62828; }
#help { padding: 0 12px; border-bottom: 1px solid #d8d8de; background: #fbfbfc; }
#help[open] { max-height: 45vh; overflow: auto; }
#help summary { cursor: pointer; padding: 6px 0; }
#help pre { background: #f0f1f4; padding: 8px; overflow-x: auto; }
#graphiql { flex: 1; min-height: 0; }
#graphiql > .graphiql-container { height: 100%; }
`;

/** Renders GraphiQL with a fetcher that adds the token; gets and renews tokens for the form. */
export const APP_JS = String.raw`(function () {
  'use strict';
  var PLACEHOLDER = '<paste token>';
  var loc = window.location;
  var origin = loc.origin;
  var wsOrigin = (loc.protocol === 'https:' ? 'wss://' : 'ws://') + loc.host;
  var NO_TOKEN = 'No token yet: use "Get token" above, or paste a token into the Headers tab.';
  var DEFAULT_HEADERS = '{\n  "Authorization": "Bearer ' + PLACEHOLDER + '"\n}';
  var DEFAULT_QUERY = [
    '# Welcome to the GraphQL API of idserver.',
    '#',
    '# Every request needs an admin access token: use "Get token" above, or paste',
    '# a token into the Headers tab below in place of ' + PLACEHOLDER + '.',
    '# Ctrl-Enter runs the operation, Ctrl-Space completes, and the Docs pane',
    '# (book icon, top left) browses the schema once a token is set.',
    '',
    'query Realms {',
    '  realms {',
    '    name',
    '    displayName',
    '    enabled',
    '  }',
    '}',
    '',
  ].join('\n');

  var $ = function (id) { return document.getElementById(id); };
  Array.prototype.forEach.call(document.querySelectorAll('.origin'), function (el) { el.textContent = origin; });
  Array.prototype.forEach.call(document.querySelectorAll('.ws-origin'), function (el) { el.textContent = wsOrigin; });

  if (typeof window.GraphiQL === 'undefined' || typeof window.React === 'undefined' || typeof window.ReactDOM === 'undefined') {
    $('graphiql').textContent = 'GraphiQL could not be loaded.';
    return;
  }

  // The signed-in token: { realm, client, username, token, refreshToken, timer }; memory only.
  var session = null;
  var base = GraphiQL.createFetcher({ url: origin + '/graphql', subscriptionUrl: wsOrigin + '/graphql' });

  // A header written in the Headers tab wins; the placeholder (or no header) takes the form's token.
  function authorize(headers) {
    var out = {};
    var written = null;
    Object.keys(headers || {}).forEach(function (k) {
      if (k.toLowerCase() === 'authorization') written = String(headers[k]);
      else out[k] = headers[k];
    });
    if (written && written.indexOf(PLACEHOLDER) === -1) out.Authorization = written;
    else if (session) out.Authorization = 'Bearer ' + session.token;
    return out;
  }

  function makeFetcher() {
    return function (params, opts) {
      var headers = authorize(opts && opts.headers);
      // Without a token the server can only answer 401: say what to do instead of asking it.
      if (!headers.Authorization) return Promise.resolve({ errors: [{ message: NO_TOKEN }] });
      return base(params, Object.assign({}, opts, { headers: headers }));
    };
  }

  var root = ReactDOM.createRoot($('graphiql'));
  // A new fetcher makes GraphiQL fetch the schema again: done when a token is obtained or forgotten.
  function render() {
    root.render(
      React.createElement(GraphiQL, {
        fetcher: makeFetcher(),
        defaultQuery: DEFAULT_QUERY,
        defaultHeaders: DEFAULT_HEADERS,
        defaultEditorToolsVisibility: 'headers',
        shouldPersistHeaders: false,
      }),
    );
  }

  function status(text, kind) {
    var el = $('status');
    el.textContent = text;
    el.className = kind || '';
  }

  function tokenRequest(realm, form) {
    return fetch(origin + '/realms/' + encodeURIComponent(realm) + '/protocol/openid-connect/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
      credentials: 'omit',
    }).then(function (res) {
      return res
        .json()
        .catch(function () { return {}; })
        .then(function (json) {
          if (!res.ok || !json.access_token) throw new Error(json.error_description || json.error || 'HTTP ' + res.status);
          return json;
        });
    });
  }

  function schedule(json) {
    if (session.timer) clearTimeout(session.timer);
    session.timer = null;
    if (!json.refresh_token) return;
    session.refreshToken = json.refresh_token;
    var seconds = Math.max(5, Math.floor((json.expires_in || 60) * 0.75));
    session.timer = setTimeout(renew, seconds * 1000);
  }

  function renew() {
    var s = session;
    if (!s) return;
    tokenRequest(s.realm, { grant_type: 'refresh_token', client_id: s.client, refresh_token: s.refreshToken }).then(
      function (json) {
        if (session !== s) return;
        s.token = json.access_token;
        schedule(json);
      },
      function (err) {
        if (session !== s) return;
        forget();
        status('Renewing the token failed (' + err.message + '): get a new one.', 'error');
      },
    );
  }

  function forget() {
    if (session && session.timer) clearTimeout(session.timer);
    session = null;
    $('signout').hidden = true;
    $('copy').hidden = true;
    status('No token: get one here, or paste one into the Headers tab below.');
    render();
  }

  $('signin').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var f = ev.target.elements;
    var realm = f.realm.value.trim();
    var client = f.client.value.trim();
    var username = f.username.value.trim();
    status('Getting a token...');
    tokenRequest(realm, { grant_type: 'password', client_id: client, username: username, password: f.password.value }).then(
      function (json) {
        if (session && session.timer) clearTimeout(session.timer);
        session = { realm: realm, client: client, username: username, token: json.access_token, refreshToken: null, timer: null };
        schedule(json);
        f.password.value = '';
        $('signout').hidden = false;
        $('copy').hidden = false;
        status('Token of ' + username + ' (realm ' + realm + ', client ' + client + '), renewed automatically, kept in this tab only.', 'ok');
        render();
      },
      function (err) {
        status('No token: ' + err.message, 'error');
      },
    );
  });

  $('signout').addEventListener('click', forget);
  $('copy').addEventListener('click', function () {
    if (!session) return;
    if (navigator.clipboard) {
      navigator.clipboard.writeText(session.token).then(
        function () { status('Token copied (valid for a short time): use it as "Authorization: Bearer <token>".', 'ok'); },
        function () { status('The browser refused the clipboard.', 'error'); },
      );
    }
  });

  render();
})();
`;
