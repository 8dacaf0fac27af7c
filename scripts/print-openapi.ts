import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../rest/openapi';

/** `npm run openapi`: writes the OpenAPI 3.1 document of the REST facade to openapi/openapi.json (checked in). */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

if (require.main === module) {
  const dir = join(__dirname, '..', 'openapi');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'openapi.json');
  writeFileSync(file, openApiText());
  process.stdout.write(`Wrote ${file}\n`);
}
