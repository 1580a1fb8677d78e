import { parseReport } from '../../infra/import/index.js';
import { IMPORT_ERRORS_LISTED } from './admin.schemas.js';

export interface ImportError {
  line: number;
  message: string;
}

/**
 * What an import's answer says of its reports (the back office's and a supplier's alike): every one
 * counted, the first IMPORT_ERRORS_LISTED listed, so a broken feed of a million lines does not build
 * a million messages. A step of no line that failed (line 0: the product feed's deactivation, its
 * check before the first line) is listed whatever came before it: past the limit it takes the last
 * listed bad line's place, so the one report that says a whole step was not done is never hidden
 * behind a thousand bad lines.
 */
export function importErrorList(): { report: (text: string) => void; errors: ImportError[]; count: () => number } {
  const errors: ImportError[] = [];
  let count = 0;
  return {
    report(text) {
      count += 1;
      const error = parseReport(text);
      if (errors.length < IMPORT_ERRORS_LISTED) {
        errors.push(error);
        return;
      }
      if (error.line !== 0) return;
      for (let at = errors.length - 1; at >= 0; at -= 1) {
        if (errors[at]!.line === 0) continue;
        errors.splice(at, 1);
        errors.push(error);
        return;
      }
    },
    errors,
    count: () => count,
  };
}
