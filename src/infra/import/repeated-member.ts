const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/**
 * The first member name that an object of `json` gives twice, or undefined. JSON.parse keeps the
 * last of `{"code":"A","name":"x","code":"B"}` without a word, so a record the back office wrote
 * twice over (two prices, two codes) would be imported as whichever came last. `json` must be
 * valid JSON (JSON.parse took it): this only walks its strings and brackets.
 */
export function repeatedMember(json: string): string | undefined {
  // The member names of each open object; null for an open array.
  const open: Array<Set<string> | null> = [];
  let atName = false;
  for (let i = 0; i < json.length; i += 1) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(json, i);
      if (atName) {
        const raw = json.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(json.slice(i, end + 1)) as string) : raw;
        const names = open.at(-1)!;
        if (names.has(name)) return name;
        names.add(name);
        atName = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT) {
      open.push(new Set());
      atName = true;
    } else if (c === OPEN_ARRAY) {
      open.push(null);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
      atName = false;
    } else if (c === COMMA) {
      atName = open.at(-1) != null;
    }
  }
  return undefined;
}

/** Where the string that opens at `start` closes: the next quote that no backslash escapes; the end of `json` when none does. */
function closingQuote(json: string, start: number): number {
  let end = json.indexOf('"', start + 1);
  for (;;) {
    if (end === -1) return json.length;
    let backslashes = 0;
    while (json.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = json.indexOf('"', end + 1);
  }
}

/** The JSON string from `start` to `end` (its quotes), or undefined when it is none (cut short, a raw tab in it). */
function stringAt(json: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(json.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}

/**
 * Every string that the outermost object of `json` gives for the member `name`, in order: more than
 * one when the member is given twice (`{"code":"A",...,"code":"B"}`), which JSON.parse would keep
 * only the last of. `json` may also be a line JSON.parse refused (cut short, a raw tab in a string):
 * the members before the fault are read alike, and a string the fault is in is none.
 */
export function memberStrings(json: string, name: string): string[] {
  const found: string[] = [];
  // Open objects and arrays; names are looked at only in the outermost object.
  let depth = 0;
  let atName = false;
  for (let i = 0; i < json.length; i += 1) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(json, i);
      if (atName && depth === 1 && stringAt(json, i, end) === name) {
        let at = end + 1;
        while (at < json.length && json[at] !== '"' && json[at] !== '{' && json[at] !== '[' && json[at] !== ',' && json[at] !== '}')
          at += 1;
        if (json.charCodeAt(at) === QUOTE) {
          const valueEnd = closingQuote(json, at);
          const value = stringAt(json, at, valueEnd);
          if (value !== undefined) found.push(value);
          i = valueEnd;
          atName = false;
          continue;
        }
      }
      atName = false;
      i = end;
    } else if (c === OPEN_OBJECT) {
      depth += 1;
      atName = depth === 1;
    } else if (c === OPEN_ARRAY) {
      depth += 1;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth -= 1;
      atName = false;
    } else if (c === COMMA) {
      atName = depth === 1;
    }
  }
  return found;
}
