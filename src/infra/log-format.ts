import type { DestinationStream } from 'pino';

// How log lines look. JSON lines (pino's own, one object a line) wherever a program reads them;
// on a terminal, where a person reads them, one short readable line each. LOG_FORMAT overrides the
// choice (json on a terminal to copy a line into a tool, pretty in a pipe to a pager).

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** The stream for pino: undefined for JSON to standard output (pino's default and fastest path). */
export function logDestination(format: LogFormat, output: Output = process.stdout): DestinationStream | undefined {
  const pretty = format === 'pretty' || (format === 'auto' && output.isTTY === true);
  if (!pretty) return undefined;
  const colors = output.isTTY === true && process.env.NO_COLOR === undefined;
  return { write: (line: string) => void output.write(readableLine(line, colors)) };
}

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '36' },
  30: { name: 'INFO ', color: '32' },
  40: { name: 'WARN ', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};

/** Shown by the line's own layout (or of no use on a terminal), so not repeated as fields. */
const LAID_OUT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

/**
 * One JSON log line as `12:00:01.234 INFO  message  key=value ...`, an error's stack indented
 * below it. A line that is not JSON is passed on as it is.
 */
export function readableLine(line: string, colors = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level).padEnd(5), color: '0' };
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const levelText = colors ? `\u001b[${level.color}m${level.name}\u001b[0m` : level.name;
  const fields = Object.entries(entry)
    .filter(([key]) => !LAID_OUT.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`);
  const parts = [time, levelText, String(entry.msg ?? ''), ...fields].filter((part) => part !== '');
  let text = parts.join(' ');
  const err = entry.err as { type?: string; message?: string; stack?: string } | undefined;
  if (err) text += `\n    ${(err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`).split('\n').join('\n    ')}`;
  return `${text}\n`;
}
