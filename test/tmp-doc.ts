import { writeFileSync } from 'node:fs';
import { createTestApp } from './harness.js';
const t = await createTestApp();
writeFileSync('/tmp/openapi.json', JSON.stringify(t.app.swagger(), null, 2));
await t.close();
