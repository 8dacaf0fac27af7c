import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printGatewaySchema } from '../resolvers/schema';

/** `npm run schema`: prints the GraphQL gateway schema to schema/schema.graphql (checked in). */
async function main(): Promise<void> {
  const file = join(__dirname, '..', 'schema', 'schema.graphql');
  writeFileSync(file, await printGatewaySchema());
  process.stdout.write(`Wrote ${file}\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
