import { readFileSync } from 'node:fs';

/** A process's resident memory now and at its peak (VmRSS and VmHWM of /proc/<pid>/status, Linux), in MB. */
export function memoryOf(pid: number | 'self'): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(status.match(new RegExp(`${name}:\\s+(\\d+) kB`))![1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}
