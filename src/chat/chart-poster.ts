import type { Logger } from "pino";
import { buildChartData } from "../chart/chart-data.js";
import type { ChartData } from "../chart/chart-types.js";
import { renderChartSvg, svgToPng } from "../chart/render-chart.js";
import type { RolloutState } from "../core/rollout/rollout-state.js";
import { type SlackWebApi, slackFailureOf } from "./slack-web-api.js";

/** Posted, or why not (a Slack error code, "rate limited", a transient failure's detail, or the drawing's error). */
export type ChartPostResult =
  | { readonly kind: "posted"; readonly fileId: string }
  | { readonly kind: "failed"; readonly why: string };

export interface ChartPoster {
  /** Draws the rollout's timeline as PNG and shares it in the channel or thread. Never rejects. */
  post(args: {
    readonly channel: string;
    readonly threadTs?: string;
    readonly state: RolloutState;
    readonly now: number;
  }): Promise<ChartPostResult>;
  /** Draws a chart's data (a fleet's, chart/fleet-chart-data.ts) as PNG and shares it as `filename`. Never rejects. */
  postData(args: {
    readonly channel: string;
    readonly threadTs?: string;
    readonly data: () => ChartData;
    readonly filename: string;
    /** What the picture shows, for its alt text ("the fleet run"). */
    readonly what: string;
  }): Promise<ChartPostResult>;
}

/** Shares rollouts' timeline charts through the Web API (the `files:write` scope). */
export function createChartPoster(o: { readonly api: SlackWebApi; readonly logger: Logger }): ChartPoster {
  const log = o.logger.child({ component: "chart-poster" });
  async function postData(args: {
    readonly channel: string;
    readonly threadTs?: string | undefined;
    readonly data: () => ChartData;
    readonly filename: string;
    readonly what: string;
  }): Promise<ChartPostResult> {
    const { channel, threadTs } = args;
    let bytes: Buffer;
    let title: string;
    try {
      const data = args.data();
      title = data.title;
      bytes = svgToPng(renderChartSvg(data));
    } catch (err) {
      log.error({ err, file: args.filename }, "chart not drawn");
      return { kind: "failed", why: "the chart could not be drawn" };
    }
    try {
      const { fileId } = await o.api.uploadFile({
        channel,
        ...(threadTs === undefined ? {} : { threadTs }),
        filename: args.filename,
        title,
        altText: `Timeline of ${args.what}: ${title}`,
        bytes,
      });
      return { kind: "posted", fileId };
    } catch (err) {
      const failure = slackFailureOf(err);
      log.warn({ err, file: args.filename }, "chart not posted");
      return {
        kind: "failed",
        why:
          failure.kind === "permanent"
            ? `Slack refused it: ${failure.error}`
            : failure.kind === "rate-limited"
              ? "Slack rate-limited the upload"
              : `Slack did not answer (${failure.detail})`,
      };
    }
  }
  return {
    post: ({ channel, threadTs, state, now }) =>
      postData({
        channel,
        threadTs,
        data: () => buildChartData(state, { now }),
        filename: `connect-roll-${state.cluster}-${state.jobId}.png`,
        what: "the rollout",
      }),
    postData,
  };
}
