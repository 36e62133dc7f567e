import type { Logger } from "pino";
import type { SlackWebApi } from "./slack-web-api.js";
import { type ClusterOverview, type FleetOverview, renderHomeView } from "./views/render-overview.js";

export interface HomeTabOptions {
  readonly api: SlackWebApi;
  /** Reads every cluster's overview (from the shared store: what any replica did shows). */
  readonly overview: () => Promise<ClusterOverview[]>;
  /** Reads every configured fleet's latest run (none: no fleet section). */
  readonly fleets?: () => Promise<FleetOverview[]>;
  readonly now: () => number;
  readonly logger: Logger;
  /** How long `refresh()` gathers changes before publishing; default 1000. */
  readonly debounceMs?: number;
  /** Re-reads the overview this often (rollouts run by other replicas); default 30 000. */
  readonly pollMs?: number;
  /** Viewers remembered (those who opened the tab most recently); default 500. */
  readonly maxViewers?: number;
}

export interface HomeTab {
  /** `app_home_opened`: publishes the user's tab now and keeps it updated from then on. */
  opened(userId: string): Promise<void>;
  /** Something moved (a rollout's event, a finished run): republishes, debounced, for viewers whose view changed. */
  refresh(): void;
  start(): void;
  /** Stops the timers and waits for a publish in flight. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The App Home tab: the team's view of every configured cluster, published per viewer with `views.publish` when they
 * open it and again whenever what it shows changed (a rollout of this replica moved, or the periodic re-read found a
 * change made by another). A view is republished only when its overview differs from the one the viewer last got.
 */
export function createHomeTab(options: HomeTabOptions): HomeTab {
  const log = options.logger.child({ component: "home-tab" });
  const debounceMs = options.debounceMs ?? 1000;
  const maxViewers = options.maxViewers ?? 500;
  /** viewer → the overview JSON they last got ("" until the first publish). */
  const viewers = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let poller: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  interface Shown {
    readonly clusters: ClusterOverview[];
    readonly fleets: FleetOverview[];
  }

  async function read(): Promise<Shown> {
    const [clusters, fleets] = await Promise.all([options.overview(), options.fleets?.() ?? []]);
    return { clusters, fleets };
  }

  async function publish(userId: string, shown: Shown, digest: string): Promise<void> {
    try {
      await options.api.publishHome(userId, renderHomeView(shown.clusters, options.now(), shown.fleets));
      if (viewers.has(userId)) viewers.set(userId, digest);
    } catch (err) {
      log.warn({ err, slackUserId: userId }, "home tab not published");
    }
  }

  async function publishChanged(): Promise<void> {
    if (viewers.size === 0) return;
    let shown: Shown;
    try {
      shown = await read();
    } catch (err) {
      log.warn({ err }, "overview unreadable; home tabs left as they are");
      return;
    }
    const digest = JSON.stringify(shown);
    for (const [userId, last] of viewers) if (last !== digest) await publish(userId, shown, digest);
  }

  function schedule(delayMs: number): void {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = running.then(publishChanged);
    }, delayMs);
    timer.unref();
  }

  return {
    async opened(userId) {
      viewers.delete(userId);
      viewers.set(userId, "");
      while (viewers.size > maxViewers) {
        const oldest = viewers.keys().next().value;
        if (oldest === undefined) break;
        viewers.delete(oldest);
      }
      const shown = await read();
      await publish(userId, shown, JSON.stringify(shown));
    },
    refresh: () => schedule(debounceMs),
    start() {
      if (poller !== undefined || stopped) return;
      poller = setInterval(() => schedule(0), options.pollMs ?? 30_000);
      poller.unref();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(poller);
      await running.catch(() => undefined);
    },
  };
}
