import type { ErrorObject, ValidateFunction } from 'ajv';
import { createAjv } from '../../lib/ajv.js';
import { officeIdProblem } from '../../lib/office-id.js';
import { stripJsonControlCharacters } from '../control-characters.js';
import { type FeedListing, sourceFingerprint, sourceSalt } from '../feed-listing.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import { ListingIssues, strippedWarning } from '../issues.js';
import { JSON_DOCUMENT_NAMES, parseJsonDocument, pointerSegment } from '../json-document.js';
import { capDeltaText } from '../text-limits.js';
import type { FeedContext, ListingDelta } from '../types.js';
import { mapProject, mapProjectChild, type ProjectDraft } from './map-project.js';
import { type ProjectInput, projectSchemas } from './project-schema.js';

/** Bump when a mapping change alters what an unchanged project document maps to. */
export const PROJECT_MAPPING_VERSION = 3; // 2: dates read within their bound; 3: Australian states spelt out stored as their abbreviation

/** One project of a feed as read: its draft record (null when invalid) and its issues. */
export interface FeedProject {
  /** 0-based position among the feed's projects. */
  index: number;
  path: string;
  identity: { office: string; uniqueId: string } | null;
  issues: ListingIssues;
  draft: ProjectDraft | null;
}

/**
 * The project schema's validator, compiled on first use: compiling takes about 140 ms, which a
 * process that never reads a project feed (most workers, most days) should not pay at start.
 */
let validateProject: ValidateFunction | null = null;
function projectValidator(): ValidateFunction {
  if (!validateProject) {
    const ajv = createAjv();
    for (const schema of projectSchemas) ajv.addSchema(schema);
    validateProject = ajv.getSchema('ProjectInput')!;
  }
  return validateProject;
}

/** Schema findings as issues: unknown fields are ignored with a warning, everything else is an error. */
function schemaIssues(errors: ErrorObject[], path: string, issuesAt: (instancePath: string) => ListingIssues): void {
  for (const e of errors) {
    const issues = issuesAt(e.instancePath);
    const at = `${path}${e.instancePath}`;
    const params = e.params as { additionalProperty?: string; missingProperty?: string; allowedValues?: unknown[] };
    if (e.keyword === 'additionalProperties')
      issues.warning(
        'ignored_field',
        `"${params.additionalProperty}" is not a field of the project format; ignored`,
        `${at}/${pointerSegment(params.additionalProperty!)}`,
      );
    else if (e.keyword === 'required')
      issues.error('missing_field', `${params.missingProperty} is required`, `${at}/${pointerSegment(params.missingProperty!)}`);
    else if (e.keyword === 'enum') issues.error('invalid_field', `must be one of ${params.allowedValues!.map((v) => JSON.stringify(v)).join(', ')}`, at);
    else if (e.keyword !== 'anyOf' || !errors.some((o) => o !== e && o.instancePath === e.instancePath))
      issues.error('invalid_field', e.message ?? 'is invalid', at);
  }
}

/**
 * Reads a project document (docs/formats.md; docs/architecture.md, Formats and mapping): each project is checked against the
 * project schema, mapped to its record, and its children to canonical listing deltas linked by
 * projectKey. Children are numbered across the whole feed (listingIndex); a project's own issues
 * carry listingIndex null. Throws FeedSyntaxError when the document is not JSON or not a project
 * document at all.
 */
export function readProjectDocument(text: string, feed: FeedContext): { projects: FeedProject[]; listings: FeedListing[] } {
  const doc = parseJsonDocument(text, JSON_DOCUMENT_NAMES.project) as { projects?: unknown };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || !Array.isArray(doc.projects)) {
    throw new FeedSyntaxError('a project document is an object with a "projects" array', 1, 1);
  }
  if (doc.projects.length === 0) throw new FeedSyntaxError('the project document has no projects', 1, 1);
  const salt = sourceSalt('project', PROJECT_MAPPING_VERSION, feed);
  const projects: FeedProject[] = [];
  const listings: FeedListing[] = [];

  doc.projects.forEach((sent: unknown, i: number) => {
    const path = `/projects/${i}`;
    const issues = new ListingIssues(null);
    const sentChildren = (sent as { listings?: unknown })?.listings;
    const children = (Array.isArray(sentChildren) ? sentChildren : []).map((_, j) => new ListingIssues(listings.length + j));
    const raw = stripJsonControlCharacters(sent, path, (at, n) => {
      const m = /^\/projects\/\d+\/listings\/(\d+)(\/|$)/.exec(at);
      strippedWarning(m ? children[Number(m[1])] : issues, at, n);
    });
    const input = raw as ProjectInput;
    const rawChildren: unknown[] = typeof raw === 'object' && raw !== null && Array.isArray(input.listings) ? input.listings : [];
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      issues.error('invalid_project', 'a project must be an object', path);
      projects.push({ index: i, path, identity: null, issues, draft: null });
      return;
    }
    if (typeof input.uniqueId === 'string') issues.stampUniqueId(input.uniqueId);
    const validate = projectValidator();
    if (!validate(raw)) {
      schemaIssues(validate.errors ?? [], path, (instancePath) => {
        const m = /^\/listings\/(\d+)(\/|$)/.exec(instancePath);
        return m ? children[Number(m[1])] : issues;
      });
    }
    const office = feed.sourceOfficeId ?? (typeof input.office === 'string' ? input.office : undefined);
    if (!office) issues.error('missing_office_id', 'project has no office and the context gives no sourceOfficeId', `${path}/office`);
    // An office that is no office id (`AGENT B`) can never be stored: no feed may push for it.
    const officeProblem = office === undefined || feed.sourceOfficeId ? null : officeIdProblem(office);
    if (officeProblem) issues.error('invalid_office_id', `office ${officeProblem}; not stored`, `${path}/office`);
    const identity = office && !officeProblem && typeof input.uniqueId === 'string' ? { office, uniqueId: input.uniqueId } : null;

    const childDeltas: (ListingDelta | null)[] = rawChildren.map((child, j) => {
      const childIssues = children[j];
      if (!identity || issues.hasErrors || childIssues.hasErrors) return null;
      const childPath = `${path}/listings/${j}`;
      const delta = mapProjectChild(child as ProjectInput['listings'][number], input, office!, feed, childIssues, childPath);
      return delta && capDeltaText(delta, childIssues, childPath);
    });
    const prices = childDeltas.flatMap((d) => (d?.price?.amount ? [d.price.amount] : []));
    const draft = identity && !issues.hasErrors ? mapProject(input, identity.office, feed, issues, path, prices) : null;
    projects.push({ index: i, path, identity, issues, draft });

    const { listings: _children, ...inherited } = input;
    const inheritedJson = JSON.stringify(inherited);
    rawChildren.forEach((child, j) => {
      const childIssues = children[j];
      const uniqueId = typeof (child as { uniqueId?: unknown })?.uniqueId === 'string' ? (child as { uniqueId: string }).uniqueId : null;
      if (uniqueId) childIssues.stampUniqueId(uniqueId);
      if (!draft) childIssues.error('project_invalid', `project ${input.uniqueId ?? i} is invalid; its listings are not stored`, `${path}/listings/${j}`);
      let hash: string | undefined;
      listings.push({
        index: childIssues.listingIndex!,
        path: `${path}/listings/${j}`,
        identity: office && uniqueId ? { office, uniqueId } : null,
        issues: childIssues,
        sourceHash: () => (hash ??= sourceFingerprint(salt, inheritedJson, JSON.stringify(child))),
        delta: () => (draft ? childDeltas[j] : null),
      });
    });
  });
  return { projects, listings };
}
