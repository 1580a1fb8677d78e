/** What an app logged, kept in memory so a test can search it for what must never be there. */
export interface LogCapture {
  /** Give this to createTestApp (or any helper built on it) as `logStream`. */
  stream: { write(line: string): void };
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** Every line as written, in one text. */
  text(): string;
}

export function captureLogs(): LogCapture {
  const written: string[] = [];
  return {
    stream: { write: (chunk: string) => void written.push(chunk) },
    lines: () => written.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => written.join(''),
  };
}
