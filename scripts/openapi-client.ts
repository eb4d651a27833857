// Writes the API description and the TypeScript types generated from it into examples/client/
// (`npm run api:client`); the tests fail when the committed copies differ from what the code
// describes now (test/openapi-client.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/runtime.js';

export const CLIENT_DIR = new URL('../examples/client/', import.meta.url);

/** The document as a default installation serves it, and the types openapi-typescript makes of it. */
export async function describeApi(): Promise<{ document: string; types: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'guestscreen-openapi-'));
  const deps = createDeps(loadConfig({ GUESTSCREEN_DATA_DIR: dir, LOG_LEVEL: 'silent', GUESTSCREEN_RDAP_ENABLED: 'false' }));
  try {
    const app = await buildApp(deps, { logger: false });
    const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    const types = `// Generated from openapi.json by openapi-typescript (npm run api:client). Do not edit.\n${astToString(await openapiTS(document))}`;
    return { document, types };
  } finally {
    await deps.database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { document, types } = await describeApi();
  writeFileSync(new URL('openapi.json', CLIENT_DIR), document);
  writeFileSync(new URL('schema.d.ts', CLIENT_DIR), types);
  process.stdout.write('wrote examples/client/openapi.json and examples/client/schema.d.ts\n');
}
