/** Kafka (Connect) versions as workers report them in `GET /` ("3.7.1", "3.7.0-ccs", "7.6.0-ce" is not Apache). */
export interface KafkaVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Anything after the numeric part, e.g. "-rc1" or "-SNAPSHOT". */
  readonly suffix: string;
  readonly raw: string;
}

const VERSION_RE = /^v?(\d{1,3})\.(\d{1,3})(?:\.(\d{1,4}))?([-+][0-9A-Za-z.+-]{1,64})?$/;

/** Parses "3.7", "3.7.1", "v3.7.1", "3.7.1-rc2". Returns null for anything else. */
export function parseKafkaVersion(text: string): KafkaVersion | null {
  const m = VERSION_RE.exec(text.trim());
  if (!m) return null;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: m[3] === undefined ? 0 : Number(m[3]),
    suffix: m[4] ?? "",
    raw: text.trim(),
  };
}

/** Orders by major, minor, patch (the suffix is ignored). */
export function compareVersions(a: KafkaVersion, b: KafkaVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** True when `v` is at least major.minor.patch. */
export function atLeast(v: KafkaVersion, major: number, minor: number, patch = 0): boolean {
  return compareVersions(v, { major, minor, patch, suffix: "", raw: "" }) >= 0;
}

/**
 * True when a reported version satisfies a target given as "3.7" (any 3.7.x) or "3.7.1" (exactly).
 */
export function versionMatches(reported: string, target: string): boolean {
  const r = parseKafkaVersion(reported);
  const t = parseKafkaVersion(target);
  if (!r || !t) return reported.trim() === target.trim();
  const targetHasPatch = /^v?\d+\.\d+\.\d+/.test(target.trim());
  if (r.major !== t.major || r.minor !== t.minor) return false;
  return !targetHasPatch || r.patch === t.patch;
}
