import type { EnvReader } from '../env.js';

/** The `jobs` section of the configuration. */
export interface JobsConfig {
  /** `inline`: `serve` runs a worker too; `off`: only `storefront worker` processes run jobs. */
  worker: 'inline' | 'off';
  pollIntervalMs: number;
  /** Jobs one worker (inline or a `worker` process) runs at once. */
  concurrency: number;
  maxAttempts: number;
}

export function readJobsConfig(env: EnvReader): JobsConfig {
  return {
    worker: env.oneOf('WORKER', 'inline', ['inline', 'off'] as const),
    pollIntervalMs: env.integer('JOB_POLL_INTERVAL_MS', 1000, 10, 600_000),
    concurrency: env.integer('JOB_CONCURRENCY', 8, 1, 64),
    maxAttempts: env.integer('JOB_MAX_ATTEMPTS', 8, 1, 100),
  };
}
