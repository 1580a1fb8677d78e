import { createReadStream, statSync } from 'node:fs';
import { translate, type Language, type MessageKey } from '../../i18n/index.js';
import type { MessageParams } from '../domain-error.js';
import type { Logger } from '../logger.js';
import { lineFailures, stepFailureMessage } from './line-failure.js';
import type { ImportProgress } from './progress.js';
import { repeatedMember } from './repeated-member.js';

export interface ImportSummary {
  lines: number;
  /** Count per outcome the apply step reported, e.g. { created: 3, unchanged: 1 }. */
  outcomes: Record<string, number>;
  /** Bad lines. */
  errors: number;
  /** Of the bad lines, those that failed on an unexpected error (the database's, a bug), not the file's; left out when none did. */
  unexpectedErrors?: number;
  /** Steps of no line that failed unexpectedly (reported without a line number); left out when none did. */
  failedSteps?: number;
  /** Set when a step before the first line failed: no line was read, nothing was written. */
  stoppedBeforeFirstLine?: true;
}

/**
 * The summary of an import that a step before its first line (`step`, a check of the whole file
 * such as the product feed's count of what it would deactivate) stopped with an unexpected error:
 * reported as a failed step after the last line is (by an id, the error logged), not thrown, so the
 * answer is the import's summary rather than a 500 or the CLI's raw error with the database's text.
 */
export function stoppedBeforeFirstLine(step: string, error: unknown, report: (line: string) => void, log: Logger): ImportSummary {
  report(stepFailureMessage(error, step, log, 'before the first line'));
  return { lines: 0, outcomes: {}, errors: 0, failedSteps: 1, stoppedBeforeFirstLine: true };
}

/** How `finish` reports what went wrong after the last line. */
export interface EndOfFileReport {
  /** A problem of an earlier line, by its number, in the operator's words. */
  fail(lineNumber: number, message: string): void;
  /**
   * The error an earlier line's work threw, reported as the lines' own errors are (LineFailures);
   * `notDone` says what of the line was not done when it was written already.
   */
  failWith(lineNumber: number, error: unknown, notDone?: string): void;
  /** The unexpected error of a step of no line (`step`: what it was doing, e.g. "the deactivation of ..."). */
  failStep(step: string, error: unknown): void;
}

export interface LineImporter<T> {
  /** Parses and checks one record; returns an error message for a bad one. */
  parse(value: unknown): { record: T } | { error: string };
  /**
   * Applies one record in a transaction of its own, so a failing line leaves nothing behind; its
   * outcome, or undefined for a line the importer decides in `finish` (which counts it then). A
   * LineError is reported in its own words, any other error as unexpected (LineFailures).
   */
  apply(record: T, lineNumber: number): Promise<string | undefined>;
  /**
   * Runs once after the last line, for work that needs the whole file (links to records later in
   * it, dropping what the file no longer lists). Returns counts to add to the outcomes. What goes
   * wrong is reported through `report`; an error it throws is reported as a failed step too.
   */
  finish?(report: EndOfFileReport): Promise<Record<string, number>>;
}

/**
 * An import that must not run, e.g. a feed that would take down most of the catalogue. Thrown
 * before anything is written; the CLI exits with 1 and says why in English (the message), the
 * HTTP import answers 409 with the reason in the caller's language (the key and its parameters).
 */
export class ImportRefusedError extends Error {
  constructor(
    readonly reasonKey: MessageKey,
    readonly params: MessageParams = {},
  ) {
    super(translate('en', reasonKey, params));
    this.name = 'ImportRefusedError';
  }

  /** Why, in `language`: the reason the HTTP import's refusal gives. */
  reason(language: Language): string {
    return translate(language, this.reasonKey, this.params);
  }
}

/** A reported line (`line 7: message`) back as its parts, for callers that want them apart. */
export function parseReport(text: string): { line: number; message: string } {
  const match = /^line (\d+): ([\s\S]*)$/.exec(text);
  return match ? { line: Number(match[1]), message: match[2]! } : { line: 0, message: text };
}

/**
 * Reads an NDJSON file line by line (constant memory), applies each record, and reports a bad
 * line by its number and skips it whole. A line that fails unexpectedly is logged on `log`.
 * Shows a progress bar on `progress` when given one.
 */
export async function importNdjson<T>(
  file: string,
  importer: LineImporter<T>,
  report: (line: string) => void,
  log: Logger,
  progress?: ImportProgress,
): Promise<ImportSummary> {
  const summary: ImportSummary = { lines: 0, outcomes: {}, errors: 0 };
  const failures = lineFailures(log);
  const fail = (lineNumber: number, message: string) => {
    summary.errors += 1;
    report(`line ${lineNumber}: ${message}`);
  };
  const count = (outcome: string, n = 1) => {
    if (n > 0) summary.outcomes[outcome] = (summary.outcomes[outcome] ?? 0) + n;
  };
  try {
    summary.lines = await readNdjson(file, 'import', fail, progress, async (value, lineNumber, bad) => {
      try {
        const parsed = importer.parse(value);
        if ('error' in parsed) return bad(lineNumber, parsed.error);
        const outcome = await importer.apply(parsed.record, lineNumber);
        if (outcome !== undefined) count(outcome);
      } catch (error) {
        bad(lineNumber, failures.message(error, lineNumber));
      }
    });
    if (importer.finish) {
      // The lines were applied, each in its own transaction, and stay so: a step after them that
      // fails is reported (and counted) beside the bad lines, and the import's answer is still its
      // summary. A 500, or the CLI's raw error, would hide which lines were applied and show the
      // database's text, to a supplier too; the step is done by importing the file again.
      const failStep = (step: string, error: unknown) => {
        summary.failedSteps = (summary.failedSteps ?? 0) + 1;
        report(stepFailureMessage(error, step, log));
      };
      const endOfFile: EndOfFileReport = {
        fail,
        failWith: (lineNumber, error, notDone) => fail(lineNumber, failures.message(error, lineNumber, notDone)),
        failStep,
      };
      try {
        for (const [outcome, n] of Object.entries(await importer.finish(endOfFile))) count(outcome, n);
      } catch (error) {
        // A kind names its own steps; this is for what none of them caught.
        failStep('the rest of the import', error);
      }
    }
  } finally {
    // Also when the run stops midway (the file cannot be read on): the ids already reported are in the log.
    const unexpected = failures.unexpected();
    if (unexpected > 0) summary.unexpectedErrors = unexpected;
    failures.close();
  }
  return summary;
}

const BOM = '\uFEFF';
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Strict: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. A file saved in
 * Windows-1257 or Latin-1 (as NAV can export) would otherwise import every "ä" as "\uFFFD" without a
 * word. The mark is kept, so a byte order mark is still told apart from line 1's JSON below.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lossyUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
/** What an operator does about it: convert the file from the back office's code page. */
const NOT_UTF8 = 'not UTF-8 text; save the file as UTF-8 (e.g. iconv -f WINDOWS-1257 -t UTF-8 in.ndjson > out.ndjson)';

/**
 * A line longer than this is skipped unread. No record of any kind comes near it (a content page's
 * HTML in three languages is well under a megabyte), and a file that is not NDJSON (a JSON array on
 * one line, a binary export) must not be held whole in memory, nor reported as bad UTF-8 when it is
 * too big for a string.
 */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
const TOO_LONG = Symbol('longer than MAX_LINE_BYTES');
const TOO_LONG_MESSAGE = `longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB, not read (is the file NDJSON, one record a line?)`;

/**
 * The lines of a byte stream as bytes, split at LF with a CR before it dropped, a last line without
 * LF too; TOO_LONG in place of a line over MAX_LINE_BYTES, whose bytes are dropped as they come.
 */
async function* byteLines(input: AsyncIterable<Buffer>): AsyncGenerator<Buffer | typeof TOO_LONG> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  for await (const chunk of input) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      if (tooLong || pendingBytes + end - start > MAX_LINE_BYTES) yield TOO_LONG;
      // A line within one chunk (nearly every line) is a view of it, not a copy: the stream never reuses a chunk.
      else
        yield withoutCarriageReturn(
          pending.length === 0 ? chunk.subarray(start, end) : Buffer.concat([...pending, chunk.subarray(start, end)]),
        );
      pending = [];
      pendingBytes = 0;
      tooLong = false;
      start = end + 1;
    }
    if (start === chunk.length || tooLong) continue;
    pending.push(chunk.subarray(start));
    pendingBytes += chunk.length - start;
    if (pendingBytes > MAX_LINE_BYTES) {
      pending = [];
      pendingBytes = 0;
      tooLong = true;
    }
  }
  if (tooLong) yield TOO_LONG;
  else if (pending.length > 0) yield withoutCarriageReturn(Buffer.concat(pending));
}

const withoutCarriageReturn = (line: Buffer) => (line.at(-1) === CARRIAGE_RETURN ? line.subarray(0, -1) : line);

/**
 * Calls `visit` with each parsed line of an NDJSON file, in order, and returns the number of
 * lines; a line that is not UTF-8 or not JSON goes to `bad` instead. Blank lines and a leading byte
 * order mark are skipped. The progress bar (on `progress`, a terminal) is labelled, so a first pass over a file is told
 * apart from the import; `visit` reports through the `bad` it is handed, which moves the bar to the
 * line first. What `bad` writes on the bar's terminal goes through `progress.write`, which clears the
 * bar's line and draws the bar again under it (a bad line the CLI does not show, or the scan's, then
 * costs the terminal nothing). A line that gives a member twice (`{"code":"A",...,"code":"B"}`) is bad
 * too. `lenient` takes both (a line that is not UTF-8 with U+FFFD in place of what is not, the last
 * of a repeated member, and the text alone, with the value undefined, of a line that is not JSON), for
 * a pass that only looks for what a line names (the product feed's scan: a bad line's product is
 * skipped, not deactivated; it reads a repeated member's every value, or the code of a line that is
 * not JSON, from the line's text, handed to `visit` too).
 */
export async function readNdjson(
  file: string,
  label: string,
  bad: (lineNumber: number, message: string) => void,
  progress: ImportProgress | undefined,
  visit: (value: unknown, lineNumber: number, bad: (lineNumber: number, message: string) => void, line: string) => void | Promise<void>,
  { lenient = false }: { lenient?: boolean } = {},
): Promise<number> {
  const decoder = lenient ? lossyUtf8 : utf8;
  const size = statSync(file).size;
  const input = createReadStream(file);
  const bar = progress?.start(label, size);
  let lines = 0;
  // The bar is drawn again where the file is under a message written through `progress.write`.
  const badLine = (lineNumber: number, message: string) => {
    bar?.update(input.bytesRead, lines);
    bad(lineNumber, message);
  };
  try {
    for await (const bytes of byteLines(input)) {
      lines += 1;
      const lineNumber = lines;
      if (bytes === TOO_LONG) {
        badLine(lineNumber, TOO_LONG_MESSAGE);
        continue;
      }
      let text: string;
      try {
        text = decoder.decode(bytes);
      } catch {
        badLine(lineNumber, NOT_UTF8);
        continue;
      }
      // A byte order mark (NAV exports start with one) is not part of the first line's JSON,
      // and JSON.parse would refuse the line.
      const line = lineNumber === 1 && text.startsWith(BOM) ? text.slice(1) : text;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        badLine(lineNumber, 'not valid JSON');
        // A pass that looks for what a line names gets the text of one that is not JSON (a value undefined).
        if (lenient) await visit(undefined, lineNumber, badLine, line);
        continue;
      }
      const repeated = lenient ? undefined : repeatedMember(line);
      if (repeated !== undefined) {
        badLine(lineNumber, `${JSON.stringify(repeated)} is given twice in one object; which one is meant?`);
        continue;
      }
      await visit(value, lineNumber, badLine, line);
      if (lines % 256 === 0) bar?.update(input.bytesRead, lines);
    }
  } finally {
    input.destroy();
    bar?.stop();
  }
  return lines;
}
