/** One office's files a poll may claim: complete, oldest first, already cut to the office's share. */
export interface OfficeFiles<T> {
  office: string;
  files: T[];
}

/**
 * The order a poll claims in (docs/sftp.md, fair claiming): round-robin across offices, one file
 * of each office in turn, oldest first within an office, until `budget` files are taken or none is
 * left. So a file alone in its office is among the first of a poll's claims however many files
 * another office dropped. Offices are taken in name order, starting after `after` (the office the
 * previous poll's claims ended with) and wrapping round: when the budget is smaller than the number
 * of offices with files, the next poll goes on where this one stopped instead of serving the same
 * first offices again.
 */
export function claimOrder<T>(offices: OfficeFiles<T>[], budget: number, after: string | null): { office: string; file: T }[] {
  const sorted = offices.filter((o) => o.files.length > 0).sort((a, b) => (a.office < b.office ? -1 : a.office > b.office ? 1 : 0));
  const start =
    after === null
      ? 0
      : Math.max(
          0,
          sorted.findIndex((o) => o.office > after),
        );
  const turn = [...sorted.slice(start), ...sorted.slice(0, start)];
  const picks: { office: string; file: T }[] = [];
  for (let round = 0; picks.length < budget; round += 1) {
    const before = picks.length;
    for (const { office, files } of turn) {
      if (picks.length === budget) break;
      if (round < files.length) picks.push({ office, file: files[round] });
    }
    if (picks.length === before) break;
  }
  return picks;
}
