import type { OptionSpec } from './option-spec';

/**
 * The CIBA authentication channel (Keycloak's `ciba-http-auth-channel` provider of the
 * `ciba-auth-channel` SPI): the HTTP(S) URI of the authentication device service that the backchannel
 * authentication endpoint POSTs each request to. Unset, CIBA requests are refused (503, as Keycloak
 * without the URI) and discovery does not offer CIBA.
 */
export interface CibaConfig {
  /** Where authentication requests go (Keycloak's `httpAuthenticationChannelUri`). */
  channelUri?: string;
}

export const CIBA_CHANNEL_OPTION = 'spi-ciba-auth-channel-ciba-http-auth-channel-http-authentication-channel-uri';

export const cibaOptions: OptionSpec[] = [
  {
    name: CIBA_CHANNEL_OPTION,
    group: 'CIBA',
    description:
      'The HTTP(S) URI of the authentication channel: CIBA authentication requests are POSTed there, and the device answers at .../ext/ciba/auth/callback.',
    parse: (raw) => {
      const text = raw.trim();
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        throw new Error('must be an http or https URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must be an http or https URL');
      return text;
    },
  },
];

/** The CIBA configuration from the option values. */
export function cibaConfigFromValues(values: Record<string, unknown>): CibaConfig {
  const channelUri = values[CIBA_CHANNEL_OPTION] as string | undefined;
  return channelUri ? { channelUri } : {};
}
