import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

interface Manifest {
  features: { app_home?: { home_tab_enabled?: boolean }; slash_commands: { url?: string }[] };
  settings: {
    event_subscriptions?: { request_url?: string; bot_events?: string[] };
    interactivity: { request_url?: string };
    socket_mode_enabled?: boolean;
  };
}

const manifest = parse(readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8")) as Manifest;

describe("manifest.yml and the Home tab", () => {
  it("enables the Home tab and subscribes to app_home_opened, the one event the app listens to", () => {
    expect(manifest.features.app_home?.home_tab_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions?.bot_events).toEqual(["app_home_opened"]);
  });

  it("in HTTP mode, events go to the same Bolt receiver as the command and the clicks", () => {
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    const url = manifest.settings.interactivity.request_url;
    expect(url).toMatch(/\/slack\/events$/);
    expect(manifest.settings.event_subscriptions?.request_url).toBe(url);
    expect(manifest.features.slash_commands.map((c) => c.url)).toEqual([url]);
  });
});
