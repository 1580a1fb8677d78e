import { describe, expect, it } from 'vitest';
import { logDestination, readableLine } from '../../src/infra/log-format.js';

// Log lines: JSON (pino's own) for programs, one readable line each on a terminal.

const line = JSON.stringify({
  level: 30,
  time: Date.UTC(2026, 10, 24, 8, 1, 2, 345),
  pid: 1,
  hostname: 'h',
  reqId: 'ab-1',
  route: '/site/health',
  statusCode: 200,
  query: 'q=[redacted] x',
  msg: 'request',
});

describe('log format', () => {
  it('shows a JSON line as time, level, message and fields, without pid and hostname', () => {
    expect(readableLine(`${line}\n`)).toBe(
      '08:01:02.345 INFO  request reqId=ab-1 route=/site/health statusCode=200 query="q=[redacted] x"\n',
    );
  });

  it("indents an error's stack under its line and colours the level only when asked", () => {
    const error = JSON.stringify({
      level: 50,
      time: 0,
      msg: 'failed',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (x.js:1:1)' },
    });
    expect(readableLine(error)).toBe('00:00:00.000 ERROR failed\n    Error: boom\n        at f (x.js:1:1)\n');
    expect(readableLine(error, true)).toContain('\u001b[31mERROR\u001b[0m');
    expect(readableLine('not json')).toBe('not json\n');
  });

  it('writes JSON (pino itself) unless the output is a terminal or pretty is asked for', () => {
    const written: string[] = [];
    const pipe = { write: (text: string) => written.push(text), isTTY: false };
    expect(logDestination('auto', pipe)).toBeUndefined();
    expect(logDestination('json', { ...pipe, isTTY: true })).toBeUndefined();
    logDestination('auto', { ...pipe, isTTY: true })!.write(line);
    logDestination('pretty', pipe)!.write(line);
    expect(written).toHaveLength(2);
    expect(written[1]).toMatch(/^08:01:02\.345 INFO {2}request /);
  });
});
