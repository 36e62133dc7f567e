import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/chat/command-grammar.js";

describe("parseCommand", () => {
  it.each([
    ["", { kind: "help" }],
    ["   ", { kind: "help" }],
    ["help", { kind: "help" }],
    ["HELP", { kind: "help" }],
    [
      "prod-cluster v3.7",
      { kind: "rollout", cluster: "prod-cluster", argument: { kind: "version", version: "v3.7" } },
    ],
    [
      "Prod-Cluster 3.7.1-rc1",
      { kind: "rollout", cluster: "prod-cluster", argument: { kind: "version", version: "3.7.1-rc1" } },
    ],
    ["prod restart", { kind: "rollout", cluster: "prod", argument: { kind: "restart" } }],
    ["prod RESTART", { kind: "rollout", cluster: "prod", argument: { kind: "restart" } }],
    [
      "rollout prod v4.0",
      { kind: "rollout", cluster: "prod", argument: { kind: "version", version: "v4.0" } },
    ],
    [
      "prod v3.7 --pace safe",
      { kind: "rollout", cluster: "prod", argument: { kind: "version", version: "v3.7" }, pace: "safe" },
    ],
    [
      "prod --pace=window restart",
      { kind: "rollout", cluster: "prod", argument: { kind: "restart" }, pace: "window" },
    ],
    [
      "prod restart --pace ROTATE",
      { kind: "rollout", cluster: "prod", argument: { kind: "restart" }, pace: "rotate" },
    ],
    ["plan prod v3.7", { kind: "plan", cluster: "prod", argument: { kind: "version", version: "v3.7" } }],
    ["plan eu.west_1 restart", { kind: "plan", cluster: "eu.west_1", argument: { kind: "restart" } }],
    ["status", { kind: "status" }],
    ["status prod", { kind: "status", cluster: "prod" }],
    ["status prod --chart", { kind: "status", cluster: "prod", chart: true }],
    ["status --chart prod", { kind: "status", cluster: "prod", chart: true }],
    ["abort prod", { kind: "abort", cluster: "prod" }],
    ["pause PROD", { kind: "pause", cluster: "prod" }],
    ["resume prod", { kind: "resume", cluster: "prod" }],
    ["history prod", { kind: "history", cluster: "prod" }],
    ["rollback prod", { kind: "rollback", cluster: "prod" }],
    ["fleet status Global", { kind: "fleet-status", fleet: "global" }],
    ["fleet abort global", { kind: "fleet-abort", fleet: "global" }],
    ["fleet status global --chart", { kind: "fleet-status", fleet: "global", chart: true }],
    [
      "fleet Global v3.7",
      { kind: "fleet-start", fleet: "global", argument: { kind: "version", version: "v3.7" } },
    ],
    ["fleet global restart", { kind: "fleet-start", fleet: "global", argument: { kind: "restart" } }],
    ["  abort \t prod  ", { kind: "abort", cluster: "prod" }],
  ])("parses %j", (text, command) => {
    expect(parseCommand(text)).toEqual({ kind: "ok", command });
  });

  it.each([
    ["prod", /missing the version/],
    ["plan prod", /missing the version/],
    ["prod v3.7 extra", /too many words/],
    ["abort", /needs the cluster name/],
    ["abort a b", /exactly one cluster/],
    ["rollback", /'rollback' needs the cluster name/],
    ["rollback prod v3.6", /'rollback' takes exactly one cluster/],
    ["fleet", /'fleet' needs the fleet's name and a version/],
    ["fleet global", /'fleet global' needs a version \(or restart\)/],
    ["fleet global v3.7 v3.8", /'fleet global' takes one version, got/],
    ["fleet global nonsense", /'nonsense' is neither a version/],
    ["fleet abort", /'fleet abort' needs the fleet's name/],
    ["fleet abort global --chart", /'fleet abort' takes exactly one fleet/],
    ["fleet status", /'fleet status' needs the fleet's name/],
    ["fleet status a b", /'fleet status' takes exactly one fleet/],
    ["fleet status _x", /'_x' is not a valid fleet name/],
    ["status a b", /at most one cluster/],
    ["status --chart", /'status --chart' needs the cluster name/],
    ["status prod --chart --chart", /--chart is given more than once/],
    ["help me", /takes no arguments/],
    ["prod latest", /'latest' is neither a version/],
    ["prod v3", /neither a version/],
    ["-prod v3.7", /unknown option/],
    ["_prod v3.7", /must start with a letter or a digit/],
    [`${"a".repeat(64)} v3.7`, /longer than 63/],
    ["prod v3.7 --pace fast", /--pace must be 'safe', 'window' or 'rotate'/],
    ["prod v3.7 --pace", /--pace needs a value/],
    ["prod v3.7 --pace safe --pace window", /more than once/],
    ["prod v3.7 --force", /unknown option '--force'/],
    ["plan prod v3.7 --pace safe", /'plan' takes no options/],
    ["prod; rm -rf / v3.7", /not allowed: ';', '\/'/],
    ["prod $(reboot)", /not allowed: '\$', '\(', '\)'/],
    ["prod `id`", /not allowed: U\+0060/],
    ["prоd v3.7", /not allowed: U\+043E/],
    ["ｐｒｏｄ v3.7", /not allowed: U\+FF50/],
    ["prod\u00a0v3.7", /not allowed: U\+00A0/],
    ["prod v3.7\u202e", /not allowed: U\+202E/],
    ["<!channel> v3.7", /not allowed: '<', '!', '>'/],
    ["x".repeat(201), /too long \(201 characters, at most 200\)/],
  ])("rejects %j", (text, message) => {
    const result = parseCommand(text);
    expect(result.kind).toBe("error");
    if (result.kind !== "error") return;
    expect(result.message).toMatch(message);
    expect(result.hint).toContain("/connect-roll");
  });

  it("shows the configured command name in hints", () => {
    const result = parseCommand("abort", { commandName: "/roll" });
    expect(result).toMatchObject({ kind: "error", hint: "/roll abort <cluster>" });
  });

  it("rejects 200 generated malformed command texts without throwing", () => {
    const texts = malformedTexts(20240611, 200);
    expect(new Set(texts).size).toBeGreaterThan(190);
    for (const text of texts) {
      let result: ReturnType<typeof parseCommand> | undefined;
      expect(() => {
        result = parseCommand(text);
      }, text).not.toThrow();
      expect(result?.kind, JSON.stringify(text)).toBe("error");
      if (result?.kind === "error") {
        expect(result.message.length).toBeGreaterThan(0);
        expect(result.hint.length).toBeGreaterThan(0);
      }
    }
  });
});

describe("parseCommand: --since on a plain restart", () => {
  const at = Date.UTC(2026, 11, 1, 10, 0, 0);
  it.each([
    ["prod restart --since 2026-12-01T10:00:00.000Z", at],
    ["prod restart --since=2026-12-01T10:00:00Z", at],
    ["prod restart --since 2026-12-01t10:00z", at],
    [`prod restart --since ${at}`, at],
    ["prod restart --pace window --since 2026-12-01T10:00:00Z", at],
  ])("%s", (text, since) => {
    const parsed = parseCommand(text);
    expect(parsed).toMatchObject({ kind: "ok", command: { kind: "rollout", since } });
  });

  it.each([
    ["prod v3.7 --since 2026-12-01T10:00:00Z", "--since applies to a plain restart only"],
    ["prod restart --since", "--since needs a time"],
    ["prod restart --since 10:00", "--since must be an ISO-8601 UTC time"],
    ["prod restart --since 2026-12-01T10:00:00Z --since 1764583200000", "--since is given more than once"],
    ["plan prod restart --since 1764583200000", "'plan' takes no options"],
  ])("%s → %s", (text, message) => {
    const parsed = parseCommand(text);
    expect(parsed.kind).toBe("error");
    if (parsed.kind === "error") expect(parsed.message).toContain(message);
  });
});

/** Deterministic generator (mulberry32) of texts that must all be rejected. */
function malformedTexts(seed: number, count: number): string[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const metas = [
    ";",
    "|",
    "&",
    "$",
    "`",
    ">",
    "<",
    "(",
    ")",
    "{",
    "}",
    "*",
    "?",
    "!",
    "'",
    '"',
    "\\",
    "/",
    "#",
    "~",
    "%",
    "^",
    "@",
    ",",
    ":",
    "+",
  ];
  const unicode = [
    "\u00a0",
    "\u200b",
    "\u202e",
    "\u0430",
    "\u043e",
    "\uff50",
    "\u00e9",
    "\u{1f680}",
    "\u2028",
    "\ufeff",
    "\u0000",
    "\u001b",
  ];
  const valid = [
    "prod v3.7",
    "plan prod v3.7",
    "abort prod",
    "status",
    "history prod",
    "prod restart --pace safe",
  ];
  const insert = (text: string, extra: string) => {
    const at = Math.floor(random() * (text.length + 1));
    return text.slice(0, at) + extra + text.slice(at);
  };
  const generators: Array<() => string> = [
    () => {
      let bytes = "";
      const length = 1 + Math.floor(random() * 40);
      for (let i = 0; i < length; i += 1) bytes += String.fromCharCode(Math.floor(random() * 256));
      return insert(bytes, pick(metas));
    },
    () => insert(pick(valid), pick(metas)),
    () =>
      pick([
        `abort ${pick(["", "a b", "a b c"])}`,
        `pause ${pick(["x y", "x y z"])}`,
        `prod${Math.floor(random() * 100)}`,
        `prod v${Math.floor(random() * 10)}.${Math.floor(random() * 10)} extra${Math.floor(random() * 100)}`,
        `plan p${Math.floor(random() * 100)}`,
        `status a${Math.floor(random() * 100)} b`,
        `help ${Math.floor(random() * 1000)}`,
        `prod${Math.floor(random() * 100)} v1.${Math.floor(random() * 100)} --pace ${pick(["", "fast", "slow"])}`,
        `prod v${Math.floor(random() * 100)}`,
        `c${Math.floor(random() * 100)} latest`,
      ]),
    () => insert(pick(valid), pick(unicode)),
    () => `${pick(valid)} ${"x".repeat(200 + Math.floor(random() * 300))}`,
  ];
  return Array.from({ length: count }, (_, i) => (generators[i % generators.length] as () => string)());
}
