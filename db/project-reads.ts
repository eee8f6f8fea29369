import type { Knex } from 'knex';
import { listingKey } from '../pipeline/listing-key.js';
import { publicProjectSql, publicRecordSql } from '../pipeline/public-view.js';
import type { ProjectStage } from '../pipeline/types.js';
import { cappedPage, PUBLIC_PAGE_MAX_BYTES } from './capped-page.js';
import { type JsonPage, jsonPage } from './public-reads.js';

/** A project as the public sees it: without its content hash, with a withheld street left out. */
const PUBLIC_PROJECT = publicProjectSql();

export interface ProjectSearch {
  stage?: ProjectStage;
  country?: string;
  office?: string;
  limit: number;
  offset: number;
}

export interface ProjectReads {
  /** Non-archived projects, newest modTime first, then projectKey, as JSON text. */
  searchProjects(search: ProjectSearch): Promise<JsonPage>;
  /**
   * A non-archived project with its public child listings (document order), as JSON text; null when
   * there is none. The listings stop where they would pass the page byte budget (the first always
   * shown); listingsOmitted counts the public listings left out.
   */
  getProjectJson(office: string, uniqueId: string): Promise<string | null>;
}

function projectFilters(db: Knex, s: ProjectSearch): Knex.QueryBuilder {
  const q = db('projects').whereNot('status', 'archived');
  if (s.stage) q.where('stage', s.stage);
  if (s.country) q.where('country', s.country);
  if (s.office) q.where('office', s.office);
  return q;
}

/** Data access for GET /v1/projects and GET /v1/projects/{office}/{uniqueId} (docs/architecture.md, Formats and mapping). */
export function createProjectReads(db: Knex, options: { pageMaxBytes?: number } = {}): ProjectReads {
  const maxBytes = options.pageMaxBytes ?? PUBLIC_PAGE_MAX_BYTES;
  return {
    async searchProjects(search) {
      const page = projectFilters(db, search)
        .select(db.raw(`${PUBLIC_PROJECT}::text AS json`), 'mod_time', 'project_key')
        .orderBy([
          { column: 'mod_time', order: 'desc' },
          { column: 'project_key', order: 'asc' },
        ])
        .offset(search.offset);
      const [rows, [{ n }]] = await Promise.all([
        cappedPage(db, page, 'mod_time DESC, project_key', search.limit, maxBytes),
        projectFilters(db, search).count({ n: '*' }),
      ]);
      return jsonPage(Number(n), rows, search.offset);
    },

    async getProjectJson(office, uniqueId) {
      const key = listingKey(office, uniqueId);
      // The children in document order with the bytes up to and including each, then those within budget.
      const { rows } = await db.raw(
        `WITH children AS (
           SELECT record, row_number() OVER w AS n, sum(octet_length(record::text)) OVER w AS upto
             FROM (SELECT ${publicRecordSql('l')} AS record, l.listing_key,
                          array_position(ARRAY(SELECT jsonb_array_elements_text(p.data->'listingKeys')), l.listing_key) AS position
                     FROM projects p JOIN listings l ON l.project_key = p.project_key AND l.is_public
                    WHERE p.project_key = ?) c
           WINDOW w AS (ORDER BY position, listing_key ROWS UNBOUNDED PRECEDING))
         SELECT (${publicProjectSql('p')} || jsonb_build_object(
                  'listings', coalesce((SELECT jsonb_agg(record ORDER BY n) FROM children WHERE n = 1 OR upto <= ?), '[]'::jsonb),
                  'listingsOmitted', (SELECT count(*) FROM children WHERE n > 1 AND upto > ?)))::text AS json
           FROM projects p WHERE p.project_key = ? AND p.status <> 'archived'`,
        [key, maxBytes, maxBytes, key],
      );
      return rows[0]?.json ?? null;
    },
  };
}
