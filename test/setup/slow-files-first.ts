import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the files that run the CLI as real processes (runCliProcess and startCli of test/helpers/cli.ts, and the
 * deployments of test/scale/processes.ts, which start several) first: they are the longest by far, and on a clean
 * checkout (CI) vitest has no durations from an earlier run, so it orders by file size and they came last, leaving
 * one worker busy with them while the others idled (the scale files' 15-27 s each at the end of CI's PostgreSQL run).
 * Within each group the order is vitest's own (failed, then longest, from its cache).
 */
export class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const spawning = sorted.filter((spec) => runsTheCli(spec.moduleId));
    return [...spawning, ...sorted.filter((spec) => !spawning.includes(spec))];
  }
}

function runsTheCli(file: string): boolean {
  try {
    const text = readFileSync(file, 'utf8');
    return ['runCliProcess(', 'startCli(', 'createDeployment('].some((call) => text.includes(call));
  } catch {
    return false;
  }
}
