import { existsSync, readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";

/**
 * The manifest must be accepted by Slack. When Slack's published schema (slackapi/manifest-schema,
 * schemas/manifest.schema.1.0.0.json) is available in ../shared/reference/, it is used as well; our own checks below
 * cover the fields this app uses and the cross-field rules no schema can express.
 */
const SLACK_SCHEMA = new URL("../../../shared/reference/manifest.schema.1.0.0.json", import.meta.url);

const httpUrl = z
  .string()
  .regex(/^https?:\/\//, "must be an http(s) URL")
  .max(3000);
const manifestSchema = z.object({
  display_information: z.object({
    name: z.string().min(1).max(35),
    description: z.string().min(1).max(140).optional(),
  }),
  features: z.object({
    bot_user: z.object({ display_name: z.string().min(1).max(80), always_online: z.boolean().optional() }),
    slash_commands: z
      .array(
        z.strictObject({
          command: z.string().min(2).max(32).regex(/^\//),
          url: httpUrl.optional(),
          description: z.string().min(1).max(2000),
          usage_hint: z.string().min(1).max(1000).optional(),
          should_escape: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(50),
  }),
  oauth_config: z.object({ scopes: z.object({ bot: z.array(z.string().max(50)) }) }),
  settings: z.object({
    interactivity: z.object({ is_enabled: z.boolean(), request_url: httpUrl.optional() }),
    socket_mode_enabled: z.boolean().optional(),
  }),
});

type Manifest = z.infer<typeof manifestSchema>;

/** Rules Slack's schema cannot express. Returns every broken rule. */
function crossFieldProblems(m: Manifest, codeUses: { scopes: string[]; command: string }): string[] {
  const problems: string[] = [];
  const socket = m.settings.socket_mode_enabled === true;
  const commandUrls = m.features.slash_commands.map((c) => c.url);
  const interactivityUrl = m.settings.interactivity.request_url;
  if (socket && (commandUrls.some((u) => u !== undefined) || interactivityUrl !== undefined))
    problems.push("socket mode: request URLs must be absent");
  if (!socket) {
    if (commandUrls.some((u) => u === undefined) || interactivityUrl === undefined)
      problems.push("HTTP mode: every request URL must be set");
    if (commandUrls.some((u) => u !== interactivityUrl))
      problems.push("the command URL must equal the interactivity URL (one Bolt receiver)");
  }
  if (!m.settings.interactivity.is_enabled)
    problems.push("interactivity must be on (Approve / Abort buttons)");
  for (const scope of codeUses.scopes)
    if (!m.oauth_config.scopes.bot.includes(scope)) problems.push(`missing bot scope ${scope}`);
  if (!m.features.slash_commands.some((c) => c.command === codeUses.command))
    problems.push(`missing command ${codeUses.command}`);
  return problems;
}

const CODE_USES = {
  scopes: ["commands", "chat:write", "usergroups:read", "files:write"],
  command: "/connect-roll",
};

function load(): unknown {
  return parse(readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8"));
}

function validate(raw: unknown): string[] {
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  const problems = crossFieldProblems(parsed.data, CODE_USES);
  if (existsSync(SLACK_SCHEMA)) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const check = ajv.compile(JSON.parse(readFileSync(SLACK_SCHEMA, "utf8")) as object);
    if (!check(raw))
      problems.push(...(check.errors ?? []).map((e) => `${e.instancePath}: ${e.message ?? "invalid"}`));
  }
  return problems;
}

describe("manifest.yml", () => {
  it("is valid and matches what the code uses", () => {
    expect(validate(load())).toEqual([]);
  });

  it("fails when the command has no description", () => {
    const m = load() as { features: { slash_commands: Record<string, unknown>[] } };
    delete m.features.slash_commands[0]?.description;
    expect(validate(m).join("\n")).toMatch(/description/);
  });

  it("fails when a request URL is not http(s)", () => {
    const m = load() as { settings: { interactivity: { request_url: string } } };
    m.settings.interactivity.request_url = "ftp://example.com/slack/events";
    expect(validate(m).join("\n")).toMatch(/http/);
  });

  it("fails when the Socket Mode variant keeps request URLs", () => {
    const m = load() as { settings: { socket_mode_enabled: boolean } };
    m.settings.socket_mode_enabled = true;
    expect(validate(m).join("\n")).toMatch(/socket mode/);
  });

  it("fails when a scope the code needs is missing", () => {
    const m = load() as { oauth_config: { scopes: { bot: string[] } } };
    m.oauth_config.scopes.bot = ["commands"];
    expect(validate(m).join("\n")).toMatch(/usergroups:read/);
  });
});
