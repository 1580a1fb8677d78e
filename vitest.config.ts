import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SlowFilesFirst } from './test/setup/slow-files-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Compiles the CLI once and, on PostgreSQL, migrates one template database (test/setup/).
    globalSetup: ['test/setup/global-setup.ts'],
    // Every file builds its own app on its own database (createTestApp), so files need no fresh
    // module graph each: reusing the worker's saves importing the app per file, which was most of
    // a small file's time (catalogue + http on 2 workers: 181 s isolated, 50 s not). What a module
    // keeps is per app or harmless across files (a request counter, WeakMaps, the hash limiter).
    isolate: false,
    // Vitest's default is one worker less than the cores: 1 on a 2-core machine. The files often
    // wait (child processes, PostgreSQL, SMTP, a rate limit's pause), so one worker more than the
    // cores: on 2 cores the SQLite suite took 228 s with two workers (88 of 455 core-seconds idle)
    // and 202 s with three (26 idle).
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: SlowFilesFirst },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
