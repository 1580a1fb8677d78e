import type { Registry } from 'prom-client';

/** One label set's counts: `observe` is a few additions, nothing is allocated per call. */
export interface HistogramSeries {
  observe(seconds: number): void;
}

interface Series extends HistogramSeries {
  labels: Record<string, string>;
  /** Per bucket, not cumulative (the last slot is above the highest bound). */
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram for the hot paths (every request, every SQL statement). prom-client's
 * `observe` hashes the label object on every call; here the caller keeps the series of its label
 * values (one `series()` look-up, then plain additions), and the text is made only when scraped:
 * the registry reads it through `get()`, the interface of its own metrics.
 */
export class FastHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    private readonly buckets: readonly number[],
  ) {}

  /** The series of these label values (in the order of `labelNames`), made on first use. */
  series(...values: string[]): HistogramSeries {
    const key = values.join('\u0000');
    let found = this.all.get(key);
    if (found === undefined) {
      found = this.newSeries(values);
      this.all.set(key, found);
    }
    return found;
  }

  registerIn(registry: Registry): this {
    registry.registerMetric(this as never);
    return this;
  }

  /** What prom-client's registry formats: cumulative buckets, sum and count per series. */
  get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const series of this.all.values()) {
      // A series made but never used (the other engine's) says nothing.
      if (series.count === 0) continue;
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += series.counts[index]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: bound }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: '+Inf' }, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.all.clear();
  }

  private newSeries(values: string[]): Series {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((name, index) => (labels[name] = values[index] ?? ''));
    const bounds = this.buckets;
    const series: Series = {
      labels,
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
      count: 0,
      observe(seconds) {
        let index = 0;
        while (index < bounds.length && seconds > bounds[index]!) index += 1;
        series.counts[index]! += 1;
        series.sum += seconds;
        series.count += 1;
      },
    };
    return series;
  }
}
