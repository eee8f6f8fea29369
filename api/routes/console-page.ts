import type { Router } from 'express';
import { staticPages } from './static-pages.js';

/**
 * GET /console: the operator console, static files that call the admin API with the operator
 * token the operator signs in with (the page itself needs no credential; every call does).
 */
export function consolePageRouter(): Router {
  return staticPages(
    {
      '/console': 'console/console.html',
      '/console/console.js': 'console/console.js',
      '/console/webhooks.js': 'console/webhooks.js',
      '/console/console.css': 'console/console.css',
    },
    { 'cache-control': 'no-cache' },
  );
}
