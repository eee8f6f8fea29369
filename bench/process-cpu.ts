import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/**
 * CPU seconds (user + system) from /proc/<pid>/stat: what the process has used so far (`own`), or
 * what its children it has waited for used (`children`); null when it is gone or /proc is not there.
 */
export function statCpuSeconds(pid: number | 'self', of: 'own' | 'children' = 'own'): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): utime and stime
    // are the 14th and 15th of the line, cutime and cstime the 16th and 17th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const at = of === 'own' ? 11 : 13;
    return (Number(fields[at]) + Number(fields[at + 1])) / TICKS;
  } catch {
    return null;
  }
}

/** CPU seconds a process has used so far; 0 when it is gone. */
const processCpu = (pid: number): number => statCpuSeconds(pid) ?? 0;

/**
 * Write system calls (write, writev: each statement or message sent on a socket is at least one) a
 * process has made so far; 0 when it is gone or its /proc/<pid>/io cannot be read. A count the
 * machine's load does not change, where CPU time grows with it.
 */
function processWrites(pid: number): number {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return Number(/^syscw: (\d+)$/m.exec(io)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The processes whose command name is `name` (e.g. postgres: the server and every backend). */
export function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * CPU used by groups of processes between start() and stop(), in seconds, and as a share of the
 * machine's cores over the same wall time: where the ceiling is. A group is a function giving its
 * pids at each reading (a backend that exits in between takes its time with it, so the figures are
 * a lower bound for short-lived processes).
 */
export function cpuMeter(groups: Record<string, () => number[]>) {
  type Reading = Record<string, Map<number, { cpu: number; writes: number }>>;
  const reading = (): Reading =>
    Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, new Map(pids().map((p) => [p, { cpu: processCpu(p), writes: processWrites(p) }]))]));
  let before = reading();
  let started = performance.now();
  return {
    start() {
      before = reading();
      started = performance.now();
    },
    /** `writes`: each group's write system calls (processWrites) over the same time. */
    stop(): { wallSeconds: number; cores: number; used: Record<string, number>; writes: Record<string, number> } {
      const wallSeconds = (performance.now() - started) / 1000;
      const after = reading();
      const used: Record<string, number> = {};
      const writes: Record<string, number> = {};
      for (const [name, pids] of Object.entries(after)) {
        used[name] = 0;
        writes[name] = 0;
        for (const [pid, now] of pids) {
          used[name] += now.cpu - (before[name].get(pid)?.cpu ?? 0);
          writes[name] += now.writes - (before[name].get(pid)?.writes ?? 0);
        }
      }
      return { wallSeconds, cores: availableParallelism(), used, writes };
    },
  };
}

/** One line per group: CPU seconds, and the share of all cores over the run. */
export function cpuLines(m: { wallSeconds: number; cores: number; used: Record<string, number> }): string {
  const capacity = m.wallSeconds * m.cores;
  const parts = Object.entries(m.used).map(([name, s]) => `${name} ${s.toFixed(1)} s (${((100 * s) / capacity).toFixed(0)}%)`);
  const total = Object.values(m.used).reduce((a, b) => a + b, 0);
  return `CPU over ${m.wallSeconds.toFixed(1)} s on ${m.cores} cores: ${parts.join(', ')}; together ${((100 * total) / capacity).toFixed(0)}% of the machine`;
}
