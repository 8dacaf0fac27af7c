import type { LayoutsParam, LoggingEvent } from 'log4js';

/**
 * Console handler (`--log=console`): writes each formatted event to stdout, or to the stream given to
 * `setConsoleStream` (tests and benchmarks capture output that way). The layout is a log4js layout:
 * `idserver-pattern` (with colour when asked) or `idserver-json`.
 */
let stream: NodeJS.WritableStream = process.stdout;

/** Redirects the console handler (takes effect at the next `configureLogging`); undefined restores stdout. */
export function setConsoleStream(s: NodeJS.WritableStream | undefined): void {
  stream = s ?? process.stdout;
}

interface LayoutConfig {
  type: string;
  pattern: string;
  [k: string]: unknown;
}

/** log4js appender module of the console handler. */
export const consoleAppenderModule = {
  configure(config?: { layout: LayoutConfig }, layouts?: LayoutsParam): (ev: LoggingEvent) => void {
    if (!config || !layouts) throw new Error('console appender: missing configuration');
    const layout = layouts.layout(config.layout.type, { tokens: {}, ...config.layout });
    const out = stream;
    return (ev) => {
      out.write(layout(ev));
    };
  },
};
