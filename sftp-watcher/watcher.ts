import { createHash, randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { Db } from '../db/knex.js';
import { dropContext, getDropSettings } from '../db/office-drops.js';
import { isUniqueViolation } from '../db/pg-errors.js';
import { type FinishedFile, finishSftpFiles, knownClaimNames, recordSftpFile, unfinishedFilesByOffice } from '../db/sftp-files.js';
import type { Logger } from '../lib/logger.js';
import type { JobQueue } from '../workers/job-queue.js';
import { claimOrder, type OfficeFiles } from './claim-order.js';
import { claimNameOf, feedKindOf, parseClaimName } from './file-names.js';
import { SftpSession, type SftpSettings } from './sftp-session.js';
import { type ListedFile, StabilityTracker } from './stability.js';

export interface WatcherDeps {
  db: Db;
  ingestQueue: JobQueue;
  logger: Logger;
  settings: SftpSettings;
  /** SFTP_POLL_MS */
  pollMs: number;
  /** FEED_MAX_BYTES: larger files go to failed/ unread. */
  maxBytes: number;
  /**
   * SFTP_OFFICE_SHARE: the most files of one office claimed and not yet ingested; a poll claims
   * this many of an office's files less those still waiting for ingest.
   */
  officeShare: number;
  /** SFTP_CLAIMS_PER_POLL: the most files one poll claims, across every office. */
  claimsPerPoll: number;
}

/** A file left in processing/ with no record this long after its claim lost its watcher: it goes back to inbox/. */
const ORPHAN_MS = 10 * 60_000;
/** Longest wait between polls while the server keeps failing. */
const MAX_BACKOFF_MS = 5 * 60_000;
const MAX_ISSUES_IN_REPORT = 200;
/**
 * The most entries a poll reads of one office folder, inbox/ or processing/ (the first ones in the
 * server's order): an inbox of 100,000 files takes 5 to 8 s to read whole on loopback (the server
 * looks at each entry), far more over a network, every poll, for the few files a poll claims of it;
 * 2,000 entries take 0.1 to 0.2 s.
 */
export const LIST_MAX = 2000;
const OFFICE_FOLDERS = ['inbox', 'processing', 'processed', 'failed'];

/** What one poll did, for logs and tests. */
export interface PollSummary {
  offices: number;
  claimed: string[];
  duplicates: string[];
  moved: number;
  /** Complete files left in inboxes for a later poll (their office's share or the poll's budget was used up). */
  waiting: number;
  /** Offices and files a step failed for while the connection held: skipped this poll, reported. */
  skipped: { office: string; file?: string; error: string }[];
}

/**
 * The SFTP drop watcher (docs/sftp.md; docs/architecture.md, SFTP drops). Each poll opens a fresh connection and,
 * per office folder `<root>/<office>/`: moves files whose feeds have finished from processing/ to
 * processed/ or failed/ (with a .error.json), returns orphaned claims to inbox/, and finds the
 * inbox files that are complete. Then it claims them fairly: each office's share (officeShare less
 * its files not yet ingested), oldest first, one file of each office in turn, at most
 * claimsPerPoll in all (claim-order.ts). A claim: rename into processing/ (the rename is the claim,
 * so several watchers never take one file), read, store as a feed event of source sftp scoped to
 * the office (unless the office already had this content), enqueue.
 */
export class SftpWatcher {
  private readonly trackers = new Map<string, StabilityTracker>();
  /** Failures already reported (office/file: message), so a file that keeps failing is logged once. */
  private readonly reported = new Set<string>();
  /** The office the last claim was of: the next poll's turn starts after it. */
  private lastClaimed: string | null = null;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<unknown> | null = null;
  private stopped = false;

  constructor(private readonly deps: WatcherDeps) {}

  private path(...parts: string[]): string {
    return posix.join(this.deps.settings.root, ...parts);
  }

  async pollOnce(): Promise<PollSummary> {
    const summary: PollSummary = { offices: 0, claimed: [], duplicates: [], moved: 0, waiting: 0, skipped: [] };
    const session = await SftpSession.open(this.deps.settings);
    try {
      const root = await session.list(this.deps.settings.root);
      if (root.unnamed)
        this.reportOnce('/: unnamed', {}, `${root.unnamed} folder(s) in the drop root have names that are not UTF-8: they are not polled; rename them`);
      const offices = root.folders.filter((f) => !f.startsWith('.')).sort();
      for (const gone of this.trackers.keys()) if (!offices.includes(gone)) this.trackers.delete(gone);
      // Every office first: finish, recover, and see which inbox files are complete. An office
      // folder that cannot be read is skipped and reported like any other office's trouble.
      const complete: OfficeFiles<ListedFile>[] = [];
      for (const office of offices) {
        await this.isolated(session, summary, { office }, async () => {
          const inside = await this.subfolders(session, office);
          if (!inside.includes('inbox')) return;
          summary.offices += 1;
          for (const folder of OFFICE_FOLDERS) if (!inside.includes(folder)) await session.mkdir(this.path(office, folder));
          complete.push({ office, files: await this.survey(session, office, summary) });
        });
      }
      // Then the claims: each office's share, one file of each office in turn, within the poll's budget.
      const { officeShare, claimsPerPoll } = this.deps;
      const unfinished = await unfinishedFilesByOffice(
        this.deps.db,
        complete.filter((o) => o.files.length > 0).map((o) => o.office),
      );
      const shares = complete.map(({ office, files }) => ({ office, files: files.slice(0, Math.max(0, officeShare - (unfinished.get(office) ?? 0))) }));
      const picks = claimOrder(shares, claimsPerPoll, this.lastClaimed);
      summary.waiting = complete.reduce((n, o) => n + o.files.length, 0) - picks.length;
      for (const { office, file } of picks) {
        this.lastClaimed = office;
        this.trackers.get(office)?.forget(file.name);
        await this.isolated(session, summary, { office, file: file.name }, () => this.claim(session, office, file, summary));
      }
      // Feeds that finish quickly (the in-process queue) have their files moved in the same poll.
      for (const office of new Set(picks.map((p) => p.office))) {
        await this.isolated(session, summary, { office }, async () => {
          summary.moved += await this.finish(session, office);
        });
      }
    } finally {
      await session.close();
    }
    return summary;
  }

  /**
   * The folders of an office folder the watcher uses. One listing of at most LIST_MAX entries; an
   * office folder holding more than that (whatever the agency put there) has its four folders
   * looked up one by one instead, so they are never missed.
   */
  private async subfolders(session: SftpSession, office: string): Promise<string[]> {
    const listing = await session.list(this.path(office), LIST_MAX);
    if (!listing.truncated) return listing.folders;
    const found: string[] = [];
    for (const folder of OFFICE_FOLDERS) if (await session.isFolder(this.path(office, folder))) found.push(folder);
    return found;
  }

  /**
   * One office before the claims: files whose feeds finished are moved, orphaned claims go back
   * to inbox/, and the inbox is read (at most LIST_MAX entries): its complete files, oldest first.
   */
  private async survey(session: SftpSession, office: string, summary: PollSummary): Promise<ListedFile[]> {
    summary.moved += await this.finish(session, office);
    await this.recoverOrphans(session, office);
    const tracker = this.trackers.get(office) ?? new StabilityTracker();
    this.trackers.set(office, tracker);
    const inbox = await session.list(this.path(office, 'inbox'), LIST_MAX);
    if (inbox.truncated)
      this.reportOnce(
        `${office}/inbox: crowded`,
        { office },
        `inbox/ holds more than ${LIST_MAX} entries: each poll reads the first ${LIST_MAX} the server lists`,
      );
    if (inbox.unnamed)
      this.reportOnce(`${office}/inbox: unnamed`, { office }, 'inbox/ holds files whose names are not UTF-8: they cannot be claimed; rename them');
    return tracker.observe(inbox.files);
  }

  private async claim(session: SftpSession, office: string, file: ListedFile, summary: PollSummary): Promise<void> {
    const { db, logger } = this.deps;
    const claim = claimNameOf(file.name, new Date(), randomBytes(4).toString('hex'));
    const kind = feedKindOf(file.name);
    const refuse = kind
      ? file.size > this.deps.maxBytes
        ? `the file is ${file.size} bytes, over the limit of ${this.deps.maxBytes}`
        : null
      : 'the file name must end in .xml (REAXML), .reso.json (RESO) or .project.json (project)';
    if (refuse) {
      if (await this.tryRename(session, this.path(office, 'inbox', file.name), this.path(office, 'failed', claim))) {
        await session.write(this.path(office, 'failed', `${claim}.error.json`), JSON.stringify({ file: file.name, error: refuse }, null, 2));
        logger.warn({ office, file: file.name, reason: refuse }, 'dropped file refused');
      }
      return;
    }
    // The claim: only one watcher's rename of this inbox file can succeed.
    if (!(await this.tryRename(session, this.path(office, 'inbox', file.name), this.path(office, 'processing', claim)))) return;
    const body = await session.read(this.path(office, 'processing', claim));
    const sha256 = createHash('sha256').update(body).digest('hex');
    const settings = await getDropSettings(db, office);
    const record = () =>
      recordSftpFile(
        db,
        { office, sha256, fileName: file.name, claimName: claim },
        {
          source: 'sftp',
          keyId: null,
          officeScope: [office],
          alertEmail: settings.alertEmail,
          format: kind!.format,
          mode: kind!.mode,
          context: { ...dropContext(settings) },
          bodyKind: 'bytes',
        },
        body,
      );
    // Two watchers storing the same content at once: the loser finds the winner's row on retry.
    const outcome = await record().catch((err) => (isUniqueViolation(err) ? record() : Promise.reject(err)));
    if ('duplicateOf' in outcome) {
      await session.rename(this.path(office, 'processing', claim), this.path(office, 'processed', claim));
      const note = {
        file: file.name,
        sha256,
        duplicateOf: { feedId: outcome.duplicateOf.feedId, file: outcome.duplicateOf.fileName },
        note: 'identical content was ingested before; not ingested again',
      };
      await session.write(this.path(office, 'processed', `${claim}.duplicate.json`), JSON.stringify(note, null, 2));
      summary.duplicates.push(file.name);
      logger.info({ office, file: file.name, duplicateOf: outcome.duplicateOf.feedId }, 'dropped file is a duplicate; not ingested again');
      return;
    }
    summary.claimed.push(file.name);
    logger.info(
      { office, file: file.name, feedId: outcome.event.id, bytes: body.length, format: kind!.format, mode: kind!.mode },
      'dropped file claimed and stored',
    );
    try {
      await this.deps.ingestQueue.add(outcome.event.id);
    } catch (err) {
      logger.warn({ feedId: outcome.event.id, err: (err as Error).message }, 'ingest queue unavailable; the sweep will queue the feed');
    }
  }

  /**
   * Runs one office's poll or one file's claim. When it fails while the connection still answers,
   * the trouble is that office's or that file's alone (a name the server refuses, a folder that is
   * a file): it is skipped this poll, reported (an error log line the first time, and the poll
   * summary), and every other office and file goes on. A lost connection still ends the poll.
   */
  private async isolated(session: SftpSession, summary: PollSummary, where: { office: string; file?: string }, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      if (!(await session.answers(this.deps.settings.root))) throw err;
      const error = (err as Error).message;
      summary.skipped.push({ ...where, error });
      const report = `${where.office}/${where.file ?? ''}: ${error}`;
      if (this.reported.has(report)) return;
      this.reported.add(report);
      this.deps.logger.error(
        { ...where, err: error },
        where.file
          ? 'a dropped file could not be claimed; skipped, the other files go on'
          : 'an office drop folder could not be polled; skipped, the other offices go on',
      );
    }
  }

  /** A warning logged the first time only (the same condition seen again on later polls is not repeated). */
  private reportOnce(key: string, where: { office?: string }, message: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.deps.logger.warn(where, message);
  }

  /** Renames unless the source is gone (another watcher was first); other failures propagate. */
  private async tryRename(session: SftpSession, from: string, to: string): Promise<boolean> {
    try {
      await session.rename(from, to);
      return true;
    } catch (err) {
      if (await session.exists(from)) throw err;
      this.deps.logger.debug({ from }, 'file already taken by another watcher');
      return false;
    }
  }

  /** Files whose feeds have finished: to processed/ when the feed was fine, else to failed/ with a report. */
  private finish(session: SftpSession, office: string): Promise<number> {
    return finishSftpFiles(this.deps.db, office, async (file) => {
      const ok = file.feedStatus === 'done' && file.result?.ok === true;
      const folder = ok ? 'processed' : 'failed';
      const from = this.path(office, 'processing', file.claimName);
      if (
        !(await this.tryRename(session, from, this.path(office, folder, file.claimName))) &&
        !(await session.exists(this.path(office, folder, file.claimName)))
      ) {
        this.deps.logger.warn({ office, file: file.claimName }, 'claimed file vanished from processing/');
      }
      if (!ok) await session.write(this.path(office, folder, `${file.claimName}.error.json`), JSON.stringify(failureReport(file), null, 2));
      return folder;
    });
  }

  /** Claims whose watcher died before recording them go back to inbox/ (by their original name). */
  private async recoverOrphans(session: SftpSession, office: string): Promise<void> {
    const { files } = await session.list(this.path(office, 'processing'), LIST_MAX);
    const known = await knownClaimNames(
      this.deps.db,
      office,
      files.map((f) => f.name),
    );
    for (const file of files) {
      const parsed = parseClaimName(file.name);
      if (!parsed || known.has(file.name) || Date.now() - parsed.claimedAt.getTime() < ORPHAN_MS) continue;
      if (await this.tryRename(session, this.path(office, 'processing', file.name), this.path(office, 'inbox', parsed.name))) {
        this.deps.logger.warn({ office, file: parsed.name }, 'an unrecorded claim was returned to inbox/');
      }
    }
  }

  /** Polls every SFTP_POLL_MS; after a failure waits twice as long each time (at most 5 minutes). */
  start(): void {
    const loop = async () => {
      if (this.stopped) return;
      this.current = this.pollOnce().then(
        (summary) => {
          this.failures = 0;
          if (summary.claimed.length || summary.moved || summary.skipped.length) this.deps.logger.info(summary, 'sftp poll');
        },
        (err) => {
          this.failures += 1;
          this.deps.logger.warn({ err: (err as Error).message, failures: this.failures }, 'sftp poll failed; backing off');
        },
      );
      await this.current;
      if (this.stopped) return;
      const delay = Math.min(this.deps.pollMs * 2 ** this.failures, Math.max(MAX_BACKOFF_MS, this.deps.pollMs));
      this.timer = setTimeout(loop, delay);
    };
    void loop();
  }

  /** Stops polling and waits for a poll in progress (a file mid-claim stays claimable or recorded). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.current;
  }
}

/** The .error.json beside a failed file: why, in the feed's own terms. */
function failureReport(file: FinishedFile) {
  const result = file.result as { ok?: boolean; counts?: unknown; summary?: unknown; reconcile?: unknown; issues?: { level: string }[] } | null;
  const errors = (result?.issues ?? []).filter((i) => i.level === 'error');
  return {
    file: file.fileName,
    feedId: file.feedId,
    feedStatus: file.feedStatus,
    ...(file.error ? { error: file.error } : {}),
    ...(result ? { counts: result.counts, summary: result.summary, reconcile: result.reconcile } : {}),
    note: result ? 'Valid listings in the file were applied; the ones below were not. Fix them and drop the file again.' : 'The feed could not be processed.',
    issues: errors.slice(0, MAX_ISSUES_IN_REPORT),
    ...(errors.length > MAX_ISSUES_IN_REPORT ? { moreIssues: errors.length - MAX_ISSUES_IN_REPORT } : {}),
  };
}
