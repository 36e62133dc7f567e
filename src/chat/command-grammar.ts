/**
 * The grammar of `/connect-roll …`. `parseCommand` returns a value, never throws: either the command or an
 * error with a message that says what was wrong and a hint that shows the right form.
 *
 *   /connect-roll <cluster> <version|restart> [--pace safe|window|rotate]   start a rollout
 *   /connect-roll <cluster> restart --since TIME                     a plain restart that counts workers started at or
 *                                                                    after TIME (ISO-8601 UTC or epoch ms) as done
 *   /connect-roll rollout <cluster> <version|restart> [--pace …]     the same, spelled out
 *   /connect-roll plan <cluster> <version|restart>                   dry run
 *   /connect-roll status [cluster]
 *   /connect-roll status <cluster> --chart                           also post its running rollout's timeline chart
 *   /connect-roll abort|pause|resume|history <cluster>
 *   /connect-roll rollback <cluster>                                 return the workers its last upgrade moved
 *   /connect-roll fleet <fleet> <version|restart>                    roll a fleet's clusters, stage by stage
 *   /connect-roll fleet status|abort <fleet>                         a fleet's latest run; abort it
 *   /connect-roll fleet status <fleet> --chart                       also post its timeline chart (a lane per cluster)
 *   /connect-roll help                                               (also: empty text)
 *
 * The subcommand words are reserved: a cluster cannot be named `plan`, `status`, … (use `rollout plan v1`), nor can
 * a fleet be named `status` or `abort`.
 */
import { isRolloutPace, type RolloutPace } from "../core/plan/plan-types.js";

export const CLUSTER_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const VERSION_PATTERN = /^v?[0-9]+\.[0-9]+(\.[0-9]+)?([-.][0-9A-Za-z]{1,32})?$/;
export const MAX_COMMAND_LENGTH = 200;

export type RolloutArgument = { kind: "restart" } | { kind: "version"; version: string };

export type Command =
  | { kind: "rollout"; cluster: string; argument: RolloutArgument; pace?: RolloutPace; since?: number }
  | { kind: "plan"; cluster: string; argument: RolloutArgument }
  | { kind: "status"; cluster?: string; chart?: true }
  | { kind: "abort"; cluster: string }
  | { kind: "pause"; cluster: string }
  | { kind: "resume"; cluster: string }
  | { kind: "history"; cluster: string }
  | { kind: "rollback"; cluster: string }
  | { kind: "fleet-status"; fleet: string; chart?: true }
  | { kind: "fleet-start"; fleet: string; argument: RolloutArgument }
  | { kind: "fleet-abort"; fleet: string }
  | { kind: "help" };

export type ParseResult = { kind: "ok"; command: Command } | { kind: "error"; message: string; hint: string };

export interface ParseOptions {
  /** The slash command as registered in Slack, shown in hints. Default `/connect-roll`. */
  commandName?: string;
}

const SUBCOMMANDS = [
  "rollout",
  "plan",
  "status",
  "abort",
  "pause",
  "resume",
  "history",
  "rollback",
  "fleet",
  "help",
] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];
const SINGLE_CLUSTER = ["abort", "pause", "resume", "history", "rollback"] as const;
/** Printable characters a valid command can contain (plus ASCII whitespace between words). */
const ALLOWED_CHAR = /[A-Za-z0-9._=:-]/;
const SEPARATOR = /[ \t\r\n]+/;

export function usageLines(commandName = "/connect-roll"): string[] {
  return [
    `${commandName} <cluster> <version|restart> [--pace safe|window|rotate]`,
    `${commandName} <cluster> restart --since TIME`,
    `${commandName} plan <cluster> <version|restart>`,
    `${commandName} status [cluster]`,
    `${commandName} status <cluster> --chart`,
    `${commandName} abort|pause|resume|history <cluster>`,
    `${commandName} rollback <cluster>`,
    `${commandName} fleet <fleet> <version|restart>`,
    `${commandName} fleet status|abort <fleet>`,
    `${commandName} fleet status <fleet> --chart`,
    `${commandName} help`,
  ];
}

export function parseCommand(text: string, options: ParseOptions = {}): ParseResult {
  const name = options.commandName ?? "/connect-roll";
  if (typeof text !== "string") return fail("the command text is missing", usageLines(name).join("\n"));
  if (text.length > MAX_COMMAND_LENGTH) {
    return fail(
      `the command is too long (${text.length} characters, at most ${MAX_COMMAND_LENGTH})`,
      usageLines(name).join("\n"),
    );
  }
  const bad = badCharacters(text);
  if (bad.length > 0) {
    return fail(
      `the command contains characters that are not allowed: ${bad.join(", ")} (use letters, digits, '.', '_', '-', ':' and spaces)`,
      usageLines(name).join("\n"),
    );
  }
  const words = text.split(SEPARATOR).filter((w) => w.length > 0);
  const [first, ...rest] = words;
  if (first === undefined) return ok({ kind: "help" });
  const sub = asSubcommand(first);
  if (sub === undefined) return parseRollout("rollout", words, name);
  switch (sub) {
    case "help":
      return rest.length === 0
        ? ok({ kind: "help" })
        : fail(`'help' takes no arguments, got ${quoteWords(rest)}`, `${name} help`);
    case "rollout":
    case "plan":
      return parseRollout(sub, rest, name);
    case "status":
      return parseStatus(rest, name);
    case "fleet":
      return parseFleet(rest, name);
    default:
      return parseSingleCluster(sub, rest, name);
  }
}

function parseStatus(all: string[], name: string): ParseResult {
  const hint = `${name} status [cluster] (or ${name} status <cluster> --chart)`;
  const chart = all.filter((w) => w.toLowerCase() === "--chart").length;
  if (chart > 1) return fail("--chart is given more than once", hint);
  const words = all.filter((w) => w.toLowerCase() !== "--chart");
  if (words.length === 0)
    return chart === 0 ? ok({ kind: "status" }) : fail("'status --chart' needs the cluster name", hint);
  if (words.length > 1) return fail(`'status' takes at most one cluster, got ${quoteWords(words)}`, hint);
  const cluster = parseCluster(words[0] ?? "");
  if (cluster.kind !== "ok") return fail(cluster.message, hint);
  return ok(
    chart === 0
      ? { kind: "status", cluster: cluster.value }
      : { kind: "status", cluster: cluster.value, chart: true },
  );
}

function parseFleet(words: string[], name: string): ParseResult {
  const hint = `${name} fleet <fleet> <version|restart>, or ${name} fleet status|abort <fleet>`;
  const [first, ...given] = words;
  if (first === undefined)
    return fail("'fleet' needs the fleet's name and a version (or status|abort and the name)", hint);
  const verb = first.toLowerCase();
  if (verb === "status" || verb === "abort") {
    const chart = verb === "status" && given.some((w) => w.toLowerCase() === "--chart");
    const rest = given.filter((w) => !chart || w.toLowerCase() !== "--chart");
    if (rest.length !== 1)
      return fail(
        rest.length === 0
          ? `'fleet ${verb}' needs the fleet's name`
          : `'fleet ${verb}' takes exactly one fleet, got ${quoteWords(rest)}`,
        hint,
      );
    const fleet = parseCluster(rest[0] ?? "");
    if (fleet.kind !== "ok") return fail(fleet.message.replace("cluster name", "fleet name"), hint);
    if (verb === "abort") return ok({ kind: "fleet-abort", fleet: fleet.value });
    return ok(
      chart
        ? { kind: "fleet-status", fleet: fleet.value, chart: true }
        : { kind: "fleet-status", fleet: fleet.value },
    );
  }
  const fleet = parseCluster(first);
  if (fleet.kind !== "ok") return fail(fleet.message.replace("cluster name", "fleet name"), hint);
  if (given.length !== 1)
    return fail(
      given.length === 0
        ? `'fleet ${fleet.value}' needs a version (or restart)`
        : `'fleet ${fleet.value}' takes one version, got ${quoteWords(given)}`,
      hint,
    );
  const argument = parseArgument(given[0] ?? "");
  if (argument.kind !== "ok") return fail(argument.message, hint);
  return ok({ kind: "fleet-start", fleet: fleet.value, argument: argument.value });
}

function parseSingleCluster(
  sub: (typeof SINGLE_CLUSTER)[number],
  words: string[],
  name: string,
): ParseResult {
  const hint = `${name} ${sub} <cluster>`;
  if (words.length === 0) return fail(`'${sub}' needs the cluster name`, hint);
  if (words.length > 1) return fail(`'${sub}' takes exactly one cluster, got ${quoteWords(words)}`, hint);
  const cluster = parseCluster(words[0] ?? "");
  return cluster.kind === "ok" ? ok({ kind: sub, cluster: cluster.value }) : fail(cluster.message, hint);
}

function parseRollout(sub: "rollout" | "plan", words: string[], name: string): ParseResult {
  const hint =
    sub === "plan"
      ? `${name} plan <cluster> <version|restart>, e.g. ${name} plan prod-cluster v3.7`
      : `${name} <cluster> <version|restart> [--pace safe|window|rotate], e.g. ${name} prod-cluster v3.7`;
  const positional: string[] = [];
  let pace: RolloutPace | undefined;
  let since: number | undefined;
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? "";
    if (!word.startsWith("-")) {
      positional.push(word);
      continue;
    }
    if (sub === "plan") return fail(`'plan' takes no options, got ${quote(word)}`, hint);
    const [flag, inline] = splitFlag(word);
    if (flag !== "--pace" && flag !== "--since")
      return fail(`unknown option ${quote(flag)} (the options are --pace and --since)`, hint);
    if ((flag === "--pace" ? pace : since) !== undefined)
      return fail(`${flag} is given more than once`, hint);
    let value = inline;
    if (value === undefined) {
      i += 1;
      value = words[i];
    }
    if (flag === "--since") {
      if (value === undefined)
        return fail("--since needs a time: ISO-8601 UTC (2026-12-01T10:00:00Z) or epoch ms", hint);
      const ms = parseSinceTime(value);
      if (ms === null)
        return fail(
          `--since must be an ISO-8601 UTC time (2026-12-01T10:00:00Z) or epoch ms, got ${quote(value)}`,
          hint,
        );
      since = ms;
      continue;
    }
    if (value === undefined) return fail("--pace needs a value: safe, window or rotate", hint);
    const lowered = value.toLowerCase();
    if (!isRolloutPace(lowered)) {
      return fail(`--pace must be 'safe', 'window' or 'rotate', got ${quote(value)}`, hint);
    }
    pace = lowered;
  }
  if (positional.length < 2) {
    const what =
      positional.length === 0
        ? "the cluster name and the version (or 'restart')"
        : "the version (or 'restart')";
    return fail(`missing ${what}`, hint);
  }
  if (positional.length > 2) {
    return fail(`too many words: expected <cluster> <version|restart>, got ${quoteWords(positional)}`, hint);
  }
  const cluster = parseCluster(positional[0] ?? "");
  if (cluster.kind === "error") return fail(cluster.message, hint);
  const argument = parseArgument(positional[1] ?? "");
  if (argument.kind === "error") return fail(argument.message, hint);
  if (sub === "plan") return ok({ kind: "plan", cluster: cluster.value, argument: argument.value });
  if (since !== undefined && argument.value.kind !== "restart")
    return fail(
      "--since applies to a plain restart only (an upgrade skips workers already on the version)",
      hint,
    );
  return ok({
    kind: "rollout",
    cluster: cluster.value,
    argument: argument.value,
    ...(pace === undefined ? {} : { pace }),
    ...(since === undefined ? {} : { since }),
  });
}

/** Epoch ms, or an ISO-8601 time in UTC (`Z`; no offsets: `+` is not a command character). Null when neither. */
function parseSinceTime(text: string): number | null {
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z)?$/i;
  const ms = /^\d{10,16}$/.test(text)
    ? Number(text)
    : iso.test(text)
      ? Date.parse(text.toUpperCase())
      : Number.NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

type Parsed<T> = { kind: "ok"; value: T } | { kind: "error"; message: string };

function parseCluster(word: string): Parsed<string> {
  const lowered = word.toLowerCase();
  if (CLUSTER_NAME_PATTERN.test(lowered)) return { kind: "ok", value: lowered };
  const reason =
    lowered.length > 63
      ? "is longer than 63 characters"
      : /^[a-z0-9]/.test(lowered)
        ? "may contain only letters, digits, '.', '_' and '-'"
        : "must start with a letter or a digit";
  return { kind: "error", message: `${quote(word)} is not a valid cluster name: it ${reason}` };
}

function parseArgument(word: string): Parsed<RolloutArgument> {
  if (word.toLowerCase() === "restart") return { kind: "ok", value: { kind: "restart" } };
  if (VERSION_PATTERN.test(word)) return { kind: "ok", value: { kind: "version", version: word } };
  return {
    kind: "error",
    message: `${quote(word)} is neither a version (like v3.7, 3.7.1 or 3.7.1-rc1) nor 'restart'`,
  };
}

function splitFlag(word: string): [string, string | undefined] {
  const eq = word.indexOf("=");
  return eq < 0 ? [word.toLowerCase(), undefined] : [word.slice(0, eq).toLowerCase(), word.slice(eq + 1)];
}

function asSubcommand(word: string): Subcommand | undefined {
  const lowered = word.toLowerCase();
  return SUBCOMMANDS.find((s) => s === lowered);
}

/** The distinct disallowed characters, shown safely (printable ASCII quoted, everything else as its Unicode code point, e.g. U+200B). */
function badCharacters(text: string): string[] {
  const seen = new Set<string>();
  for (const char of text) {
    if (ALLOWED_CHAR.test(char) || SEPARATOR.test(char)) continue;
    const code = char.codePointAt(0) ?? 0;
    const shown =
      code >= 0x21 && code <= 0x7e && char !== "`"
        ? `'${char}'`
        : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    seen.add(shown);
    if (seen.size >= 5) break;
  }
  return [...seen];
}

function quote(word: string): string {
  return word.length > 40 ? `'${word.slice(0, 40)}…'` : `'${word}'`;
}

function quoteWords(words: string[]): string {
  return quote(words.join(" "));
}

function ok(command: Command): ParseResult {
  return { kind: "ok", command };
}

function fail(message: string, hint: string): ParseResult {
  return { kind: "error", message, hint };
}
