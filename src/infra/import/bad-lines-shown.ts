import { parseReport } from './ndjson-import.js';

/**
 * How many bad lines an import on the command line prints in full. A file that is not the kind's
 * NDJSON (a CSV, a JSON array, another kind's lines) has every line bad, nearly all for one reason:
 * a file of 100,000 lines printed 100,000 messages, which took the summary and the advice under them
 * off the screen and filled a log. Twenty is a screenful that tells such a file from a few real
 * mistakes, and shows a pattern of them: a file with more is mended by their cause, then imported
 * again, which reports the next ones (lines imported already stay unchanged). The HTTP import lists
 * its first 1,000 (IMPORT_ERRORS_LISTED), for a program to read.
 */
export const BAD_LINES_SHOWN = 20;

/**
 * Passes an import's reports on to `report`: the first BAD_LINES_SHOWN bad lines (`line N: ...`)
 * and every failed step of no line, which is never hidden behind bad lines (it says a whole step
 * was not done). `notShown` is then the one line saying how many bad lines were left out, or
 * undefined when none was. The import's summary counts them all either way.
 */
export function showingFirstBadLines(report: (text: string) => void): { report: (text: string) => void; notShown(): string | undefined } {
  let shown = 0;
  let left = 0;
  return {
    report(text) {
      const badLine = parseReport(text).line !== 0;
      if (badLine && shown === BAD_LINES_SHOWN) {
        left += 1;
        return;
      }
      if (badLine) shown += 1;
      report(text);
    },
    notShown: () =>
      left === 0 ? undefined : `and ${left} more bad line${left === 1 ? '' : 's'}, not shown (the first ${BAD_LINES_SHOWN} are above)`,
  };
}
