// The build's output: the command (dist/cli.js) and its threads (dist/read-worker.js and the others),
// each one ES module with the packages that ship as hundreds of small modules compiled in. A start
// then loads about 60 files instead of about 750, which took a third off the time to the first
// answer (docs/performance.md). Modules imported only when needed (the demo seeder, the importers)
// stay in chunks of their own beside them. Run by `npm run build` after the type check.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Packages compiled into the output: those shipped as many small ES modules (at the last count,
 * Kysely 262, TypeBox 247, mrz 50, cel-js 14, ulidx with layerr 7). Every other import of
 * node_modules stays an import, resolved at run time.
 */
const BUNDLED = new Set(['kysely', '@sinclair/typebox', '@fastify/type-provider-typebox', 'mrz', '@marcbachmann/cel-js', 'ulidx', 'layerr']);
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  // The reader thread's file sits beside the chunk that starts it (src/db/sqlite/readers.ts finds it
  // as ./read-worker.js), so chunks are written in dist/ too.
  entryPoints: {
    cli: 'src/cli.ts',
    'read-worker': 'src/db/sqlite/read-worker.ts',
    'job-thread': 'src/job-thread.ts',
    'reading-process': 'src/lib/reading/reading-process.ts',
    'checkpoint-thread': 'src/db/sqlite/checkpoint-thread.ts',
  },
  absWorkingDir: root,
  outdir: 'dist',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [
    {
      name: 'node-modules-outside',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED.has(packageOf(args.path)) ? undefined : { external: true }));
      },
    },
  ],
});
