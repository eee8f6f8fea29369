import type { Router } from 'express';
import { staticPages } from './static-pages.js';

/** GET /developer: request a feed key and dry-run a feed in a browser. */
export function developerPageRouter(): Router {
  return staticPages(
    { '/developer': 'developer.html', '/developer/developer.js': 'developer.js', '/developer/developer.css': 'developer.css' },
    { 'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'" },
  );
}
