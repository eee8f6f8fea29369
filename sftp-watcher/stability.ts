import { finalNameOf, isTemporaryName } from './file-names.js';

export interface ListedFile {
  name: string;
  size: number;
  /** Modification time in ms (1-second granularity over SFTP). */
  modifyTime: number;
}

/**
 * Decides when an inbox file is complete (docs/architecture.md, SFTP drops): it appeared under its final name where
 * the previous poll saw its temporary upload name (an upload renamed when done), or its size and
 * mtime are unchanged since the previous poll. Empty files and temporary names are never ready.
 * One tracker per watcher and office; it only remembers the previous poll.
 */
export class StabilityTracker {
  private previous = new Map<string, ListedFile>();
  private previousTemporary = new Set<string>();

  /** The files of this poll that are complete, oldest first (then by name). */
  observe(files: ListedFile[]): ListedFile[] {
    const ready: ListedFile[] = [];
    const current = new Map<string, ListedFile>();
    const temporary = new Set<string>();
    for (const file of files) {
      if (isTemporaryName(file.name)) {
        const final = finalNameOf(file.name);
        if (final) temporary.add(final);
        continue;
      }
      current.set(file.name, file);
      if (file.size === 0) continue;
      const before = this.previous.get(file.name);
      const renamedFromUpload = !before && this.previousTemporary.has(file.name);
      const unchanged = before !== undefined && before.size === file.size && before.modifyTime === file.modifyTime;
      if (renamedFromUpload || unchanged) ready.push(file);
    }
    this.previous = current;
    this.previousTemporary = temporary;
    return ready.sort((a, b) => a.modifyTime - b.modifyTime || a.name.localeCompare(b.name));
  }

  /** Forgets a file (claimed, or moved away), so a new file of the same name starts afresh. */
  forget(name: string): void {
    this.previous.delete(name);
  }
}
