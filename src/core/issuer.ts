/** The issuer URL of a realm's tokens (`iss`), the base of its OIDC endpoints and of e-mail action links. */
export const issuerOf = (baseUrl: string, realm: string) => `${baseUrl}/realms/${encodeURIComponent(realm)}`;
