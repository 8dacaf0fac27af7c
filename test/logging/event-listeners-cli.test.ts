// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Cli, eventually, runCli } from './helpers';

/**
 * The event listener options reach the server started by the command: with
 * --spi-events-listener-jboss-logging-success-level=info a successful LOGIN of the master realm (which
 * names jboss-logging by default) is a JSON record of org.keycloak.events at the default root level INFO.
 */
jest.setTimeout(90_000);

const PASSWORD = 'Pa55-w0rd-never-logged-e1b2';

test('the success level option and JSON output, through src/cli.ts', async () => {
  const d = mkdtempSync(join(tmpdir(), 'idserver-evcli-'));
  const cli: Cli = runCli(
    [
      'start-dev',
      '--http-port=0',
      `--db-url=${join(d, 'db.sqlite')}`,
      `--bootstrap-admin-password=${PASSWORD}`,
      '--log-console-output=json',
      '--spi-events-listener-jboss-logging-success-level=info',
    ],
    { IDSERVER_CONFIG_FILE: join(d, 'none.conf') },
  );
  try {
    const url = await cli.url;
    const res = await fetch(`${url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    const events = () =>
      cli
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"org.keycloak.events"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await eventually(() => events().length > 0);
    const [login] = events();
    expect(login.level).toBe('INFO');
    expect(login.message).toMatch(/^type="LOGIN", realmId="[^"]+", realmName="master", clientId="admin-cli", userId="[^"]+", /);
    expect(cli.stdout()).not.toContain(PASSWORD);
  } finally {
    await cli.stop();
  }
});
