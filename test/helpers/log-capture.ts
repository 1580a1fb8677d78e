import type { FastifyInstance } from 'fastify';
import pino from 'pino';

export interface CapturedLogs {
  /** Every line written since the capture began, parsed. */
  lines(): Record<string, unknown>[];
}

/**
 * Sends the app's log (pino, under Fastify; the worker of a test app logs through the same logger)
 * to memory instead of stdout, so that a test can read what the service would have written. Give
 * the app a LOG_LEVEL that writes what you want to see (the test apps are silent by default).
 * Child loggers read the root's stream through their prototype, so the ones made earlier follow.
 */
export function captureLogs(app: FastifyInstance): CapturedLogs {
  const written: string[] = [];
  const root = app.log as unknown as Record<symbol, unknown>;
  root[pino.symbols.streamSym] = { write: (line: string) => void written.push(line) };
  return {
    lines: () => written.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
