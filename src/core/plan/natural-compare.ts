const collator = new Intl.Collator("en", { numeric: true, sensitivity: "variant" });

/** Natural order for worker names: "worker-2" before "worker-10". Deterministic (fixed locale, code-point tie-break). */
export function compareNatural(a: string, b: string): number {
  const c = collator.compare(a, b);
  if (c !== 0) return c;
  return a < b ? -1 : a > b ? 1 : 0;
}
