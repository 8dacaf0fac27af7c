import type { LoggingEvent } from 'log4js';
import { compileDateFormat } from './date-format';
import { type GelfFieldOptions, gelfMessage } from './gelf-message';
import { type GelfSender, tcpSender, udpSender } from './gelf-transport';

/**
 * GELF handler (`--log=gelf`) as a log4js appender module: `--log-gelf-host` (prefix `tcp:` for TCP,
 * UDP otherwise), `--log-gelf-port`, chunking above `--log-gelf-max-message-size`.
 */
export interface GelfConfig extends GelfFieldOptions {
  host: string;
  port: number;
  timestampFormat: string;
  maxMessageSize: number;
}

type Appender = ((ev: LoggingEvent) => void) & { shutdown?: (done: (e?: Error) => void) => void; sender?: GelfSender };

/** Splits `tcp:graylog` into protocol and host; `udp:` is accepted too, no prefix means UDP. */
export function parseGelfHost(value: string): { protocol: 'udp' | 'tcp'; host: string } {
  const m = /^(tcp|udp):(.*)$/i.exec(value.trim());
  const host = (m ? m[2] : value).trim();
  if (!host) throw new Error('must be a host name, optionally prefixed with tcp: (e.g. tcp:graylog.example.com)');
  return { protocol: m && m[1].toLowerCase() === 'tcp' ? 'tcp' : 'udp', host };
}

/** log4js appender module of the GELF handler. */
export const gelfAppenderModule = {
  configure(config: GelfConfig): Appender {
    const { protocol, host } = parseGelfHost(config.host);
    const sender = protocol === 'tcp' ? tcpSender(host, config.port) : udpSender(host, config.port, config.maxMessageSize);
    const timestamp = compileDateFormat(config.timestampFormat);
    const appender: Appender = (ev) => {
      try {
        sender.send(JSON.stringify(gelfMessage(ev, config, timestamp)));
      } catch {
        // A message that cannot be serialised is dropped; logging never throws into the caller.
      }
    };
    appender.sender = sender;
    appender.shutdown = (done) => sender.close(() => done());
    return appender;
  },
};
