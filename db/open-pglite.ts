import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/**
 * The embedded database in its folder, as the service opens it: pg_trgm backs the directory's
 * case-insensitive substring search, and btree_gist the map index's time order, as on PostgreSQL; sharedBuffers sets PostgreSQL's
 * shared_buffers (default 128MB).
 */
export function openPglite(dir: string, sharedBuffers?: string | null): PGlite {
  return new PGlite(dir, {
    extensions: { pg_trgm, btree_gist },
    ...(sharedBuffers ? { postgresqlconf: [`shared_buffers=${sharedBuffers}`] } : {}),
  });
}
