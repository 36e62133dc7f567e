/**
 * A duration as people type it on the command line: one or more amounts with a unit, largest first — `90s`, `30m`,
 * `2h`, `1h30m`, `1d`, `500ms`. Milliseconds, or null when the text is not one (no unit, zero, a unit twice).
 */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const UNIT_ORDER = ["d", "h", "m", "s", "ms"];
const PART = /(\d+)(ms|s|m|h|d)/gy;

export function parseDurationFlag(text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "") return null;
  PART.lastIndex = 0;
  let total = 0;
  let lastUnit = -1;
  let end = 0;
  for (const match of trimmed.matchAll(PART)) {
    const [, amount = "", unit = ""] = match;
    const rank = UNIT_ORDER.indexOf(unit);
    if (rank <= lastUnit) return null;
    lastUnit = rank;
    total += Number(amount) * (UNIT_MS[unit] ?? 0);
    end = (match.index ?? 0) + match[0].length;
  }
  if (end !== trimmed.length || !Number.isSafeInteger(total) || total <= 0) return null;
  return total;
}
