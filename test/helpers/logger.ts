import type { FastifyBaseLogger } from 'fastify';

export interface LogLine {
  level: string;
  obj: unknown;
  msg?: string;
}

/** A logger that keeps what it is told, so a test can assert what was logged. */
export function recordingLogger(): { log: FastifyBaseLogger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, obj, msg });
  const log = {
    level: 'info',
    ...Object.fromEntries(['fatal', 'error', 'warn', 'info', 'debug', 'trace'].map((level) => [level, at(level)])),
    silent: () => {},
    child: () => log,
  };
  return { log: log as unknown as FastifyBaseLogger, lines };
}
