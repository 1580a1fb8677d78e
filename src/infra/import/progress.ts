import cliProgress from 'cli-progress';

/**
 * The terminal an import draws its progress bar on: the CLI's stderr when it is one, none elsewhere
 * (a pipe, a log file, an HTTP import), so nothing is drawn where no person watches.
 *
 * Whatever else the CLI writes there while a bar is drawn (a bad line's report, a log line) goes
 * through `write`: written as it is, it would land on the bar's line after the bar's
 * text, and the bar's next redraw would go over it. So the bar's line is cleared first (the bar is
 * stopped, clearing its line) and the bar drawn again under what was written.
 */
export class ImportProgress {
  #bar: DrawnBar | undefined;

  constructor(readonly stream: NodeJS.WriteStream) {}

  /** What a log destination asks of its output (infra/log-format.ts): a terminal. */
  get isTTY(): boolean {
    return this.stream.isTTY === true;
  }

  /** Draws a bar labelled `label` for `total` bytes, until its `stop`. */
  start(label: string, total: number): ProgressBar {
    const bar = new DrawnBar(this.stream, label, total);
    this.#bar = bar;
    return {
      update: (bytes, lines) => bar.update(bytes, lines),
      stop: () => {
        bar.stop();
        if (this.#bar === bar) this.#bar = undefined;
      },
    };
  }

  /** Writes whole lines on the terminal with the bar's line cleared; the bar, when one is drawn, is drawn again under them. */
  write(text: string): void {
    const bar = this.#bar;
    if (bar === undefined) {
      this.stream.write(text);
      return;
    }
    bar.stop();
    try {
      this.stream.write(text);
    } finally {
      bar.resume();
    }
  }
}

export interface ProgressBar {
  update(bytes: number, lines: number): void;
  stop(): void;
}

class DrawnBar {
  readonly #bar: cliProgress.SingleBar;
  #bytes = 0;
  #lines = 0;

  constructor(
    stream: NodeJS.WriteStream,
    label: string,
    readonly total: number,
  ) {
    // Stopping clears the bar's line: `write` stops it to write under it; at the end the reports
    // and the summary stay on the terminal, the bar does not.
    this.#bar = new cliProgress.SingleBar(
      { stream, clearOnComplete: true, format: ` ${label} {bar} {percentage}% | {value}/{total} bytes | {lines} lines` },
      cliProgress.Presets.shades_classic,
    );
    this.resume();
  }

  update(bytes: number, lines: number): void {
    this.#bytes = bytes;
    this.#lines = lines;
    this.#bar.update(bytes, { lines });
  }

  stop(): void {
    this.#bar.stop();
  }

  resume(): void {
    this.#bar.start(this.total, this.#bytes, { lines: this.#lines });
  }
}
