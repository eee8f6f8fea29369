import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fingerprintOf } from '../sftp-watcher/sftp-session.js';
import { freePort } from './processes.js';

export interface SftpServer {
  port: number;
  /** The drop root on this machine (the server serves it as is). */
  root: string;
  username: string;
  clientKeyPath: string;
  /** The host key's fingerprint as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  stop(): Promise<void>;
}

/**
 * A real OpenSSH server (Debian openssh-server) on a free loopback port with a temporary
 * configuration: key authentication for the current user, the internal SFTP subsystem only.
 */
export async function startSftpServer(): Promise<SftpServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sshd-test-'));
  const root = join(dir, 'drops');
  mkdirSync(root);
  mkdirSync('/run/sshd', { recursive: true }); // Debian's sshd wants its privilege-separation folder
  for (const name of ['host_key', 'client_key']) {
    const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, name)]);
    if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
  }
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')));
  const port = await freePort();
  writeFileSync(
    join(dir, 'sshd_config'),
    `${[
      'ListenAddress 127.0.0.1',
      `Port ${port}`,
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'Subsystem sftp internal-sftp',
      'ForceCommand internal-sftp',
      'AllowTcpForwarding no',
      'X11Forwarding no',
      'MaxStartups 100',
    ].join('\n')}\n`,
  );
  const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  sshd.stderr.on('data', (d) => (log += d));
  await new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      if (log.includes('Server listening')) resolve();
      else if (sshd.exitCode !== null || Date.now() - started > 10_000) reject(new Error(`sshd did not start: ${log}`));
      else setTimeout(check, 20);
    };
    check();
  });
  const hostKey = Buffer.from(readFileSync(join(dir, 'host_key.pub'), 'utf8').split(' ')[1], 'base64');
  return {
    port,
    root,
    username: userInfo().username,
    clientKeyPath: join(dir, 'client_key'),
    fingerprint: fingerprintOf(hostKey),
    async stop() {
      if (sshd.exitCode === null) {
        sshd.kill('SIGTERM');
        await new Promise((resolve) => sshd.once('exit', resolve));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
