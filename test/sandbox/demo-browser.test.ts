import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningDemo, startDemo } from "../../src/demo/demo.js";
import { chromiumPath } from "../support/check-prerequisites.js";
import { waitFor } from "../support/wait-for.js";

/**
 * The acceptance test: the demo page in a real browser (Debian's Chromium, driven by playwright-core),
 * against the real bot, the Web API fake and the simulated cluster. Never downloads a browser.
 */
const CHROMIUM = chromiumPath();
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const APPROVE = 'button[data-action-id="connect-roll.approve"]';

let demo: RunningDemo | undefined;
let context: BrowserContext | undefined;
let profile: string | undefined;

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await demo?.close();
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
});

/** Waits until the locator matches exactly `n` elements. */
async function countIs(locator: Locator, n: number, timeoutMs = 10_000): Promise<void> {
  let count: number | undefined;
  await waitFor(
    `${n} of ${locator.toString()}`,
    async () => {
      count = await locator.count();
      return count === n;
    },
    { timeoutMs, intervalMs: 100 },
  ).catch((e: unknown) => {
    throw new Error(`${(e as Error).message} (found ${count})`);
  });
}

async function actAs(page: Page, user: string): Promise<void> {
  await page.selectOption("#user-picker", user);
}

describe("npm run demo: the sandbox page in Chromium", () => {
  it("runs /connect-roll demo v3.7 through an eager-window approval to the final report", async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is missing at ${CHROMIUM}: install Debian's chromium package (.ci/run does) to run this test`,
      );
    }
    demo = await startDemo({
      port: 0,
      scenario: "eager-upgrade",
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    });
    profile = mkdtempSync(join(tmpdir(), "connect-roll-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1600, height: 1000 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    try {
      await drive(page, demo);
    } catch (err) {
      mkdirSync("artifacts", { recursive: true });
      await page.screenshot({ path: "artifacts/demo-failure.png" }).catch(() => undefined);
      throw err;
    }
  }, 120_000);
});

async function drive(page: Page, demo: RunningDemo): Promise<void> {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  const failed: string[] = [];
  page.on("requestfailed", (request) => failed.push(request.url()));
  page.on("pageerror", (error) => failed.push(`page error: ${error.message}`));

  await page.goto(demo.url);
  await page.locator("#connection.live").waitFor({ timeout: 10_000 });
  await countIs(page.locator("#workers .worker"), 6);

  // The requester starts the rollout from the composer.
  await actAs(page, "U0DEMOREQ");
  await page.fill("#composer-input", "/connect-roll demo v3.7");
  await page.press("#composer-input", "Enter");
  const parent = page.locator("#channel-messages .message:not(.ephemeral)").first();
  await parent.getByText("demo 2.2.2/3.6.1 → 3.7", { exact: false }).first().waitFor({ timeout: 10_000 });
  await page
    .locator("#channel-messages .message.ephemeral", { hasText: "Starting the rollout of demo" })
    .waitFor();

  // The thread opens with the approval prompt for the eager window.
  const thread = page.locator("#thread-messages");
  const prompt = thread.locator(".message", { hasText: "Approval needed" });
  await prompt.locator(APPROVE).waitFor({ timeout: 15_000 });

  // The outsider's click is refused, privately, and the prompt stays as it was.
  await actAs(page, "U0DEMOOUT");
  await prompt.locator(APPROVE).click();
  const refusal = thread.locator(".message.ephemeral", { hasText: "You may not answer this prompt" });
  await refusal.waitFor({ timeout: 10_000 });
  expect(await refusal.locator(".ephemeral-tag").textContent()).toContain("Only visible to you");
  await page.waitForTimeout(500);
  expect(await prompt.locator(APPROVE).count()).toBe(1);
  expect(await prompt.textContent()).not.toContain("Approved by");
  expect(demo.sim.cluster.state().workers.every((w) => w.version !== "3.7")).toBe(true);

  // The approver's click is honoured: the prompt records it and the rollout goes on to the report.
  await actAs(page, "U0DEMOAPP");
  await countIs(refusal, 0);
  await prompt.locator(APPROVE).click();
  await thread.getByText("Approved by @approver", { exact: false }).first().waitFor({ timeout: 10_000 });
  await thread.locator(".message", { hasText: "Step 1/6" }).first().waitFor({ timeout: 15_000 });
  // Mid-rollout: a restarted worker's tasks held by the scheduled delay, with the countdown.
  await page.locator("#held.active .countdown").waitFor({ timeout: 30_000 });
  mkdirSync("artifacts", { recursive: true });
  await page.screenshot({ path: "artifacts/demo-running.png" });
  const report = thread
    .locator(".thread-divider ~ .message", { hasText: "Totals" })
    .filter({ hasText: "succeeded" });
  await report.first().waitFor({ timeout: 75_000 });
  await countIs(thread.locator(".message", { hasText: /Step \d\/6/ }), 6);
  await parent.getByText("succeeded").first().waitFor({ timeout: 10_000 });
  expect(demo.sim.cluster.state().workers.every((w) => w.version === "3.7")).toBe(true);
  await countIs(page.locator("#workers .badge.version", { hasText: "3.7" }), 6);
  expect(failed).toEqual([]);
  // mrkdwn: *bold*, `code`, ```blocks``` and <@mentions> rendered, not shown raw.
  expect(await report.first().locator("strong").count()).toBeGreaterThan(0);
  expect(await report.first().locator("pre.code-block").count()).toBe(1);
  expect(await thread.locator(".mention", { hasText: "@requester" }).count()).toBeGreaterThan(0);
  expect(await thread.locator("code").count()).toBeGreaterThan(0);
  expect(await thread.textContent()).not.toMatch(/<@U0DEMO|```/);

  // The final report is also in the channel (reply_broadcast), marked as such in the thread.
  const broadcast = page.locator("#channel-messages .message", { hasText: "replied to a thread" });
  await broadcast.filter({ hasText: "succeeded" }).first().waitFor({ timeout: 10_000 });
  expect(await report.first().locator(".broadcast-tag").textContent()).toContain("Also sent to the channel");

  // The rollout's timeline chart follows the report in the thread: an image the page loaded from the fake's upload.
  const chart = thread.locator(".file img[data-file^='connect-roll-demo-']");
  await chart.first().waitFor({ timeout: 15_000 });
  await waitFor("the chart image to load", () =>
    chart.first().evaluate((img) => {
      const image = img as unknown as { complete: boolean; naturalWidth: number };
      return image.complete && image.naturalWidth > 0;
    }),
  );
  expect(await thread.locator(".file figcaption").first().textContent()).toBe("demo → v3.7: succeeded");
  expect(await chart.first().getAttribute("alt")).toContain("Timeline of the rollout");
  await chart.first().scrollIntoViewIfNeeded();
  await thread.locator(".file").first().screenshot({ path: "artifacts/demo-chart.png" });

  // The Home tab: opening it sends app_home_opened, the bot publishes every cluster with the last result.
  await page.locator("#tab-home").click();
  const home = page.locator("#home .home-view");
  await home.getByText("last rollout: ✅", { exact: false }).waitFor({ timeout: 10_000 });
  expect(await home.textContent()).toContain("4 clusters · 0 rollouts in progress");
  expect(await home.locator("strong", { hasText: "demo" }).count()).toBeGreaterThan(0);
  await page.screenshot({ path: "artifacts/demo-home.png" });
  await page.locator("#tab-channel").click();
  await page.locator("#channel-messages").waitFor({ state: "visible" });
  expect(failed).toEqual([]);

  await page.locator("#thread-messages").evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await page.screenshot({ path: "artifacts/demo.png" });
  if (process.env.UPDATE_SCREENSHOT === "1") {
    mkdirSync("docs", { recursive: true });
    copyFileSync("artifacts/demo.png", "docs/demo.png");
  }
}
