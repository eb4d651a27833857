import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CLIENT_DIR, describeApi } from '../scripts/openapi-client.js';
import { createTestApp, dbKind } from './harness.js';

const run = promisify(execFile);

describe(`the typed client example (${dbKind})`, () => {
  it('is generated from the current API description, compiles, and screens a booking', async () => {
    const { document, types } = await describeApi();
    assert.equal(readFileSync(new URL('openapi.json', CLIENT_DIR), 'utf8'), document, 'examples/client/openapi.json is current: run npm run api:client');
    assert.equal(readFileSync(new URL('schema.d.ts', CLIENT_DIR), 'utf8'), types, 'examples/client/schema.d.ts is current: run npm run api:client');

    const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
    await run(process.execPath, [tsc, '-p', fileURLToPath(new URL('tsconfig.json', CLIENT_DIR))]);

    const t = await createTestApp();
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as { port: number };
      const { stdout } = await run(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('screen-a-booking.ts', CLIENT_DIR))], {
        env: { PATH: process.env.PATH ?? '', GUESTSCREEN_URL: `http://127.0.0.1:${port}`, GUESTSCREEN_API_KEY: t.root.key },
      });
      assert.match(stdout, /^res_\w+: \w+ \((green|yellow|red|unknown)\)\n/);
    } finally {
      await t.close();
    }
  });
});
