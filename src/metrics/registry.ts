// A small Prometheus registry: counters and histograms with labels, gauges read at scrape time, text exposition.

type Labels = Record<string, string>;

const needsEscape = /[\\"\n]/;

function escapeLabelValue(value: string): string {
  return needsEscape.test(value) ? value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n') : value;
}

/** The series key: labels sorted by name, values escaped. Every ingest request builds a few: no intermediate arrays. */
function labelKey(labels: Labels | undefined): string {
  if (!labels) return '';
  const names = Object.keys(labels);
  if (names.length > 1) names.sort();
  let key = '';
  for (const name of names) key += `${key === '' ? '' : ','}${name}="${escapeLabelValue(String(labels[name]))}"`;
  return key;
}

export class Counter {
  private readonly values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string) {}

  inc(labels?: Labels, amount = 1): void {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + amount);
  }

  get(labels?: Labels): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, value] of this.values) lines.push(`${this.name}${key ? `{${key}}` : ''} ${value}`);
    return lines;
  }
}

export class Histogram {
  private readonly series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string, readonly buckets: readonly number[]) {}

  observe(value: number, labels?: Labels): void {
    const key = labelKey(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    for (let index = 0; index < this.buckets.length; index++) if (value <= this.buckets[index]!) entry.counts[index]!++;
    entry.sum += value;
    entry.count++;
  }

  /** The upper bound of the bucket holding quantile q (what histogram_quantile would bracket). */
  quantileUpperBound(q: number, labels?: Labels): number | undefined {
    const entry = this.series.get(labelKey(labels));
    if (!entry || entry.count === 0) return undefined;
    const rank = q * entry.count;
    for (let index = 0; index < this.buckets.length; index++) if (entry.counts[index]! >= rank) return this.buckets[index];
    return Number.POSITIVE_INFINITY;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, entry] of this.series) {
      const prefix = key ? `${key},` : '';
      this.buckets.forEach((bound, index) => lines.push(`${this.name}_bucket{${prefix}le="${bound}"} ${entry.counts[index]}`));
      lines.push(`${this.name}_bucket{${prefix}le="+Inf"} ${entry.count}`);
      lines.push(`${this.name}_sum${key ? `{${key}}` : ''} ${entry.sum}`);
      lines.push(`${this.name}_count${key ? `{${key}}` : ''} ${entry.count}`);
    }
    return lines;
  }
}

export class Gauge {
  constructor(readonly name: string, readonly help: string, private readonly read: () => number) {}
  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, `${this.name} ${this.read()}`];
  }
}

/** A gauge with one series per label set, all read at scrape time. */
export class LabeledGauge {
  constructor(readonly name: string, readonly help: string, private readonly read: () => [Labels, number][]) {}
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    for (const [labels, value] of this.read()) lines.push(`${this.name}{${labelKey(labels)}} ${value}`);
    return lines;
  }
}

/** Every metric of one app instance. */
export class MetricsRegistry {
  private readonly metrics: (Counter | Histogram | Gauge | LabeledGauge)[] = [];

  counter(name: string, help: string): Counter {
    return this.add(new Counter(name, help));
  }
  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }
  gauge(name: string, help: string, read: () => number): Gauge {
    return this.add(new Gauge(name, help, read));
  }

  labeledGauge(name: string, help: string, read: () => [Labels, number][]): LabeledGauge {
    return this.add(new LabeledGauge(name, help, read));
  }

  /** A metric made elsewhere (one shared by every app of the thread). */
  include<T extends Counter | Histogram | Gauge | LabeledGauge>(metric: T): T {
    return this.add(metric);
  }

  render(): string {
    return `${this.metrics.flatMap((metric) => metric.render()).join('\n')}\n`;
  }

  private add<T extends Counter | Histogram | Gauge | LabeledGauge>(metric: T): T {
    this.metrics.push(metric);
    return metric;
  }
}
