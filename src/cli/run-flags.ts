import { isRolloutPace, type RolloutPace } from "../core/plan/plan-types.js";
import { type ChartTarget, parseChartFlag } from "./chart-file.js";
import { type ApprovePolicy, parseApproveFlag } from "./cli-approvals.js";
import { parseDurationFlag } from "./duration-flag.js";
import { parseSince } from "./run-summary.js";

/** `connect-roll run`'s arguments and flags, checked. */
export interface RunFlags {
  readonly config: string;
  readonly cluster: string;
  /** `restart`, or the version as typed. */
  readonly argument: string;
  readonly policy: ApprovePolicy;
  readonly pace: RolloutPace | undefined;
  readonly since: number | undefined;
  readonly json: boolean;
  /** `--chart FILE`: the timeline chart written when the run ends (or is interrupted). */
  readonly chart: ChartTarget | null;
  /** `--timeout D`: the run's time limit in ms (null: none). */
  readonly timeoutMs: number | null;
}

/** The flags, or what is wrong with them (a usage error). */
export function parseRunFlags(
  values: Record<string, unknown>,
  positionals: readonly string[],
): { readonly kind: "ok"; readonly flags: RunFlags } | { readonly kind: "usage"; readonly message: string } {
  const [cluster = "", argument = ""] = positionals;
  let policy: ApprovePolicy = { kind: "some", kinds: new Set() };
  if (values.yes === true) policy = { kind: "all" };
  else if (typeof values.approve === "string") {
    const parsed = parseApproveFlag(values.approve);
    if (parsed.kind === "error") return { kind: "usage", message: parsed.message };
    policy = { kind: "some", kinds: parsed.kinds, notBack: parsed.notBack };
  }
  const pace = values.pace;
  if (pace !== undefined && !isRolloutPace(pace))
    return { kind: "usage", message: "--pace must be safe, window or rotate" };
  const since = values.since === undefined ? undefined : parseSince(String(values.since));
  if (since === null) return { kind: "usage", message: "--since must be an ISO-8601 time or epoch ms" };
  const chart = parseChartFlag(values.chart);
  if (chart.kind === "usage") return chart;
  const timeoutMs = values.timeout === undefined ? null : parseDurationFlag(String(values.timeout));
  if (timeoutMs === null && values.timeout !== undefined)
    return {
      kind: "usage",
      message: `--timeout must be a duration like 30m, 2h or 1h30m, got "${String(values.timeout)}"`,
    };
  return {
    kind: "ok",
    flags: {
      config: String(values.config),
      cluster,
      argument,
      policy,
      pace,
      since,
      json: values.json === true,
      chart: chart.chart,
      timeoutMs,
    },
  };
}
