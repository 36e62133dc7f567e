/** One sample of the Prometheus text exposition format. */
export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** May be ±Infinity or NaN. */
  readonly value: number;
  readonly timestampMs: number | null;
}
