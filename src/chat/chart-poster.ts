import type { Logger } from "pino";
import { buildChartData } from "../chart/chart-data.js";
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
}

/** Shares rollouts' timeline charts through the Web API (the `files:write` scope). */
export function createChartPoster(o: { readonly api: SlackWebApi; readonly logger: Logger }): ChartPoster {
  const log = o.logger.child({ component: "chart-poster" });
  return {
    async post({ channel, threadTs, state, now }) {
      let bytes: Buffer;
      let title: string;
      try {
        const data = buildChartData(state, { now });
        title = data.title;
        bytes = svgToPng(renderChartSvg(data));
      } catch (err) {
        log.error({ err, jobId: state.jobId }, "chart not drawn");
        return { kind: "failed", why: "the chart could not be drawn" };
      }
      try {
        const { fileId } = await o.api.uploadFile({
          channel,
          ...(threadTs === undefined ? {} : { threadTs }),
          filename: `connect-roll-${state.cluster}-${state.jobId}.png`,
          title,
          altText: `Timeline of the rollout: ${title}`,
          bytes,
        });
        return { kind: "posted", fileId };
      } catch (err) {
        const failure = slackFailureOf(err);
        log.warn({ err, jobId: state.jobId, cluster: state.cluster }, "chart not posted");
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
    },
  };
}
