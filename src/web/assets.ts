import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyPluginAsync } from 'fastify';
import { packageFile } from '../lib/packages.js';
import { CONSOLE_SCRIPT, FAVICON, HTMX, POLICE_SCRIPT, SELFIE_SCRIPT, STYLESHEET } from './layout.js';

const require = createRequire(import.meta.url);

/**
 * The pages' stylesheet, htmx and the console's small script, served from the package itself: no CDN, nothing fetched from
 * elsewhere. Read once at start; a browser revalidates with the ETag.
 */
export const assetRoutes: FastifyPluginAsync = async (app) => {
  const assets = [
    { url: STYLESHEET, file: packageFile('public/style.css'), type: 'text/css; charset=utf-8' },
    { url: HTMX, file: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
    { url: CONSOLE_SCRIPT, file: packageFile('public/console.js'), type: 'text/javascript; charset=utf-8' },
    { url: SELFIE_SCRIPT, file: packageFile('public/selfie.js'), type: 'text/javascript; charset=utf-8' },
    { url: POLICE_SCRIPT, file: packageFile('public/police.js'), type: 'text/javascript; charset=utf-8' },
    // The icon a browser shows on the tab: where a page names none, browsers ask for /favicon.ico.
    { url: FAVICON, file: packageFile('public/favicon.svg'), type: 'image/svg+xml' },
    { url: '/favicon.ico', file: packageFile('public/favicon.ico'), type: 'image/x-icon' },
  ];
  for (const a of assets) {
    const body = readFileSync(a.file);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    app.get(a.url, { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      reply.header('etag', etag).header('cache-control', 'public, max-age=3600, must-revalidate');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type(a.type).send(body);
    });
  }
};
