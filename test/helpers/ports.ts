import { createServer } from 'node:net';

/**
 * A port for a listener that must be told its port before it binds (a child slapd, a GELF server
 * started after the client), or that is stopped and started again on the same port.
 *
 * A port from `listen(0)` is an ephemeral one: once released, any outgoing connection of any process
 * (a database client, an LDAP client) may take it as its local port before the listener binds, and
 * the listener fails with EADDRINUSE. Ports below Linux's ephemeral range (32768–60999 by default)
 * are never handed out that way, so one of them that binds now stays free for the test.
 */
export async function stablePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error('no free port below the ephemeral range');
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
