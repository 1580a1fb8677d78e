import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, LOOPBACK } from './child.js';

// A throwaway PostgreSQL primary with one streaming replica on loopback ports, from Debian's
// packages (/usr/lib/postgresql/<version>/bin), for the scale-out run. PostgreSQL refuses to run
// as root, so under root the clusters belong to the `postgres` user (as ../shared's test cluster).

export interface PrimaryWithReplica {
  primaryUrl: string;
  replicaUrl: string;
  /** Bytes of WAL the replica has still to replay (0 when it has caught up). */
  replayLag(): Promise<number>;
  stop(): void;
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  return join(root, versions[versions.length - 1]!, 'bin');
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program, as the `postgres` user when this process is root. */
function run(program: string, args: string[]): void {
  const quoted = [program, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  if (asRoot) execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', quoted], { stdio: ['ignore', 'ignore', 'inherit'] });
  else execFileSync(program, args, { stdio: ['ignore', 'ignore', 'inherit'] });
}

export async function startPrimaryWithReplica(): Promise<PrimaryWithReplica> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'storefront-scale-'));
  chmodSync(dir, 0o777);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const common = `-k /tmp -c listen_addresses=${LOOPBACK} -c fsync=off -c synchronous_commit=off -c max_connections=200`;
  run(join(bin, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  // The default pg_hba.conf of `initdb -A trust` already lets loopback connect for replication.
  const pgCtl = join(bin, 'pg_ctl');
  run(pgCtl, ['-D', primaryDir, '-l', join(dir, 'primary.log'), '-w', '-o', `-p ${primaryPort} ${common} -c wal_level=replica`, 'start']);
  try {
    run(join(bin, 'pg_basebackup'), ['-D', replicaDir, '-h', LOOPBACK, '-p', String(primaryPort), '-U', 'postgres', '-R', '-X', 'stream']);
    run(pgCtl, ['-D', replicaDir, '-l', join(dir, 'replica.log'), '-w', '-o', `-p ${replicaPort} ${common} -c hot_standby=on`, 'start']);
  } catch (err) {
    run(pgCtl, ['-D', primaryDir, 'stop', '-m', 'immediate']);
    throw err;
  }
  const primaryUrl = `postgres://postgres@${LOOPBACK}:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@${LOOPBACK}:${replicaPort}/postgres`;
  return {
    primaryUrl,
    replicaUrl,
    async replayLag() {
      const client = new pg.Client({ connectionString: primaryUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ lag: string | null }>(
          'select max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn))::text as lag from pg_stat_replication',
        );
        return Number(rows[0]?.lag ?? Infinity);
      } finally {
        await client.end();
      }
    },
    stop() {
      for (const data of [replicaDir, primaryDir]) {
        try {
          run(pgCtl, ['-D', data, 'stop', '-m', 'fast']);
        } catch {
          // Already stopped (or never started): nothing to stop.
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `url` with another database name. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Waits until the replica has replayed everything the primary has written so far. */
export async function waitForReplica(cluster: PrimaryWithReplica, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await cluster.replayLag()) > 0) {
    if (Date.now() > deadline) throw new Error('the replica did not catch up');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
