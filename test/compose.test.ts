import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { repoRoot } from './helpers.js';

/** The Procfile's roles: name and command. */
function procfile(): Map<string, string> {
  const roles = new Map<string, string>();
  for (const line of readFileSync(resolve(repoRoot, 'Procfile'), 'utf8').split('\n')) {
    const m = /^([a-z]+):\s*(.+)$/.exec(line.trim());
    if (m) roles.set(m[1], m[2]);
  }
  return roles;
}

describe('container files: compose.yaml and the Dockerfile match the Procfile', () => {
  const compose = parse(readFileSync(resolve(repoRoot, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<
      string,
      { command?: string[]; image?: string; build?: string; environment?: Record<string, string>; depends_on?: Record<string, unknown> }
    >;
  };

  it('parses, with PostgreSQL, Redis (never evicting) and one service per Procfile role running its command', () => {
    expect(compose.services).to.include.keys('postgres', 'redis');
    expect(compose.services.redis.command).to.include('noeviction');
    const roles = procfile();
    expect([...roles.keys()].sort()).to.deep.equal(['sftp', 'web', 'worker']);
    for (const [role, command] of roles) {
      const service = compose.services[role];
      expect(service, `a ${role} service`).to.not.equal(undefined);
      expect(service.command?.join(' '), role).to.equal(command);
      expect(service.environment).to.include({ DATABASE_URL: 'postgres://listings:listings@postgres:5432/listings', REDIS_URL: 'redis://redis:6379' });
      expect(service.depends_on).to.include.keys('postgres', 'redis');
    }
  });

  it('offers a streaming read replica (the replica profile) that the roles read through DATABASE_READ_URL when it is given', () => {
    const replica = compose.services['postgres-replica'] as { command?: string[]; profiles?: string[]; depends_on?: Record<string, unknown> };
    expect(replica.profiles).to.deep.equal(['replica']);
    expect(replica.command?.join(' ')).to.contain('pg_basebackup -h postgres').and.to.contain('-R -X stream');
    expect(replica.depends_on).to.include.keys('postgres');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, compared as written
    const asWritten = '${DATABASE_READ_URL:-}';
    for (const role of ['web', 'worker', 'sftp']) expect(compose.services[role].environment?.DATABASE_READ_URL, role).to.equal(asWritten);
  });

  it('the Dockerfile builds in a stage of its own and runs as a non-root user with production dependencies only', () => {
    const dockerfile = readFileSync(resolve(repoRoot, 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^FROM /gm)).to.have.length(2);
    expect(dockerfile).to.match(/npm ci --omit=dev/);
    expect(dockerfile).to.match(/^USER node$/m);
    expect(dockerfile).to.contain(`CMD ["${procfile().get('web')!.split(' ').join('", "')}"]`);
  });
});
