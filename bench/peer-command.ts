import { spawn } from 'node:child_process';
import { statCpuSeconds } from './process-cpu.js';

/**
 * A peer parser run beside a bench as a command the person running the bench gives (no peer code
 * is kept in this repository; docs/performance.md says how the one measured was obtained and run).
 * The command is run by /bin/sh with the feed's path as its last argument, `$1` inside it.
 */
export interface PeerRun {
  seconds: number;
  /**
   * Its CPU time (user and system, its children's included), from this process's waited-for
   * children's times in /proc/self/stat (clock ticks of 10 ms); null where that cannot be read.
   */
  cpuSeconds: number | null;
  /** The last line of the command's output when it is a whole number (the listings it read), else null. */
  listings: number | null;
}

/** The CPU seconds of this process's children that have been waited for (Linux), or null. */
const childrenCpuSeconds = () => statCpuSeconds('self', 'children');

/** Runs command over the feed at path and times it from spawn to exit (wall clock, the process's start included). */
export async function runPeer(command: string, path: string): Promise<PeerRun> {
  const cpuBefore = childrenCpuSeconds();
  const start = process.hrtime.bigint();
  const child = spawn('/bin/sh', ['-c', `${command} "$1"`, 'peer', path], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out = (out + d).slice(-4000)));
  child.stderr.on('data', (d: Buffer) => (err = (err + d).slice(-4000)));
  const code = await new Promise<number | null>((resolveExit, reject) => {
    child.on('error', reject);
    child.on('close', resolveExit);
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpuAfter = childrenCpuSeconds();
  const cpuSeconds = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
  if (code !== 0) throw new Error(`the peer command exited with ${code}:\n${err}`);
  const last = out.trim().split('\n').pop() ?? '';
  return { seconds, cpuSeconds, listings: /^\d+$/.test(last) ? Number(last) : null };
}
