import pino from "pino";
import { describe, expect, it } from "vitest";
import { createHomeTab } from "../../src/chat/home-tab.js";
import type { SlackWebApi } from "../../src/chat/slack-web-api.js";
import type { ClusterOverview } from "../../src/chat/views/render-overview.js";
import { waitFor } from "../support/wait-for.js";

const idle = (cluster: string): ClusterOverview => ({
  cluster,
  active: null,
  lock: null,
  last: null,
  window: { kind: "always" },
});

function recordingApi(fail = new Set<string>()) {
  const published: { user: string; blocks: number }[] = [];
  const api: SlackWebApi = {
    postMessage: async () => ({ channel: "C", ts: "1.1" }),
    update: async () => undefined,
    postEphemeral: async () => undefined,
    usergroupsUsersList: async () => [],
    uploadFile: async () => ({ fileId: "F1" }),
    async publishHome(user, view) {
      if (fail.has(user)) throw new Error("views.publish failed");
      published.push({ user, blocks: view.blocks.length });
    },
  };
  return { api, published };
}

describe("home tab publisher", () => {
  it("publishes on open, republishes a viewer's tab only when the overview changed, and survives a failing viewer", async () => {
    let overviews = [idle("a")];
    let reads = 0;
    const { api, published } = recordingApi(new Set(["UBROKEN"]));
    const tab = createHomeTab({
      api,
      overview: async () => {
        reads += 1;
        return overviews;
      },
      now: () => 0,
      logger: pino({ level: "silent" }),
      debounceMs: 0,
    });
    await tab.opened("U1");
    await tab.opened("UBROKEN");
    expect(published.map((p) => p.user)).toEqual(["U1"]);

    const readsBefore = reads;
    tab.refresh();
    await waitFor("the overview re-read", () => reads > readsBefore);
    // Nothing changed for U1; UBROKEN never got its view, so it is tried again (and fails again, quietly).
    expect(published.map((p) => p.user)).toEqual(["U1"]);

    overviews = [idle("a"), idle("b")];
    tab.refresh();
    await waitFor("the tab republished after a change", () => published.length === 2);
    expect(published[1]).toMatchObject({ user: "U1" });
    await tab.stop();
    tab.refresh();
    expect(published).toHaveLength(2);
  });
});
