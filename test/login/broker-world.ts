import { createClient, createRealm } from '../helpers/fixtures';
import { formAction, Jar, type LoginWorld, loginWorld, REDIRECT } from './browser-client';

/**
 * Identity brokering fixtures: on one listening server, realm `rp` (the login world's realm, client
 * `app`, user `alice`) brokers to realm `ext` of the same server through an OpenID Connect identity
 * provider `ext` (confidential client `broker-client`, user `bob`). A browser keeps one cookie jar per
 * realm, as a real one keeps cookies per path.
 */
export const IDP_REALM = 'ext';
export const SECRET = 'broker-secret';

export class Browser {
  private readonly jars = new Map<string, Jar>();

  jar(url: string): Jar {
    const realm = /\/realms\/([^/]+)\//.exec(new URL(url).pathname)?.[1] ?? '';
    if (!this.jars.has(realm)) this.jars.set(realm, new Jar());
    return this.jars.get(realm) as Jar;
  }

  /** Drops the cookies of one realm (its SSO session), keeping the others'. */
  forget(realm: string): void {
    this.jars.delete(realm);
  }

  fetch(url: string): Promise<Response> {
    return this.jar(url).fetch(url);
  }

  post(url: string, fields: Record<string, string>): Promise<Response> {
    return this.jar(url).post(url, fields);
  }

  /** Follows redirects until a page (200/4xx/5xx) or a redirect to the application. */
  async follow(res: Response): Promise<Response> {
    let r = res;
    for (let i = 0; i < 10 && r.status === 302; i++) {
      const location = r.headers.get('location') as string;
      if (location.startsWith(REDIRECT)) return r;
      r = await this.fetch(location);
    }
    return r;
  }
}

export interface BrokerWorld extends LoginWorld {
  idpIssuer: string;
  /** The identity provider's config for `rp` (alias `ext`). */
  idpConfig: Record<string, string>;
}

export async function brokerWorld(realmExtra: Record<string, unknown> = {}): Promise<BrokerWorld> {
  const w = await loginWorld('rp', realmExtra);
  const { api, base } = w;
  await createRealm(api, IDP_REALM, { eventsEnabled: true });
  await createClient(api, IDP_REALM, {
    clientId: 'broker-client',
    publicClient: false,
    secret: SECRET,
    redirectUris: [`${base}/realms/*`],
    protocolMappers: [
      {
        name: 'dept',
        protocol: 'openid-connect',
        protocolMapper: 'oidc-hardcoded-claim-mapper',
        config: {
          'claim.name': 'dept',
          'claim.value': 'eng',
          'jsonType.label': 'String',
          'id.token.claim': 'true',
          'userinfo.token.claim': 'true',
        },
      },
    ],
  });
  await api
    .post(`/admin/realms/${IDP_REALM}/users`, {
      username: 'bob',
      enabled: true,
      email: 'bob@ext.example',
      firstName: 'Bob',
      lastName: 'Builder',
      credentials: [{ type: 'password', value: 'pw', temporary: false }],
    })
    .expect(201);
  const idpIssuer = `${base}/realms/${IDP_REALM}`;
  const idpConfig = {
    authorizationUrl: `${idpIssuer}/protocol/openid-connect/auth`,
    tokenUrl: `${idpIssuer}/protocol/openid-connect/token`,
    jwksUrl: `${idpIssuer}/protocol/openid-connect/certs`,
    userInfoUrl: `${idpIssuer}/protocol/openid-connect/userinfo`,
    issuer: idpIssuer,
    clientId: 'broker-client',
    clientSecret: SECRET,
    clientAuthMethod: 'client_secret_post',
    validateSignature: 'true',
    useJwksUrl: 'true',
    pkceEnabled: 'true',
    pkceMethod: 'S256',
    defaultScope: 'openid profile email',
    syncMode: 'IMPORT',
  };
  await api
    .post('/admin/realms/rp/identity-provider/instances', {
      alias: 'ext',
      displayName: 'External',
      providerId: 'oidc',
      enabled: true,
      trustEmail: true,
      config: idpConfig,
    })
    .expect(201);
  return { ...w, idpIssuer, idpConfig };
}

/** The href of the login page's link to a provider. */
export function providerLink(html: string, alias: string): string | undefined {
  const m = new RegExp(`id="social-${alias}" href="([^"]+)"`).exec(html);
  return m ? m[1].replace(/&amp;/g, '&') : undefined;
}

/** What the browser ended on: a page, or a redirect (to the application). */
export interface Step {
  status: number;
  location: string | null;
  html: string;
}

export const stepOf = async (res: Response): Promise<Step> => ({
  status: res.status,
  location: res.headers.get('location'),
  html: res.status === 302 ? '' : await res.text(),
});

/** Follows the provider's link of a page: to the provider's login (signed in as `username`), and back until a page or the application. */
export async function viaProvider(w: BrokerWorld, b: Browser, link: string, username = 'bob', password = 'pw'): Promise<Step> {
  const r = await stepOf(await b.follow(await b.fetch(new URL(link, w.base).toString())));
  if (r.status !== 200 || !formAction(r.html).includes(`/realms/${IDP_REALM}/`)) return r;
  return stepOf(await b.follow(await b.post(formAction(r.html), { username, password })));
}

/** The whole brokered login from the client's authorization request, through the login page's link. */
export async function brokeredLogin(
  w: BrokerWorld,
  b: Browser,
  opts: { username?: string; alias?: string; params?: Record<string, string> } = {},
): Promise<Step> {
  const page = await b.fetch(w.authUrl(opts.params));
  const link = providerLink(await page.text(), opts.alias ?? 'ext');
  if (!link) throw new Error(`no provider link on the login page: ${page.status} ${page.headers.get('location')}`);
  return viaProvider(w, b, link, opts.username);
}

/** The code of a step that redirected to the application. */
export function codeOf(s: Step): string {
  if (!s.location?.startsWith(REDIRECT)) throw new Error(`not at the application: ${s.status} ${s.location} ${s.html.slice(0, 300)}`);
  return new URL(s.location).searchParams.get('code') as string;
}
