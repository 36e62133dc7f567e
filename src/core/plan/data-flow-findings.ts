import { plural } from "../plural.js";
import type { Finding, PlanDataFlow } from "./plan-types.js";

/** What the plan says of data flow: how many tasks flow and which are idle, or why it cannot see it. */
export function findDataFlowFindings(flow: PlanDataFlow): Finding[] {
  switch (flow.kind) {
    case "visible": {
      const idle = flow.idle.length;
      const list =
        idle === 0 ? "" : ` (${flow.idle.slice(0, 8).join(", ")}${idle > 8 ? `, +${idle - 8}` : ""})`;
      return [
        {
          severity: "info",
          code: "data-flow",
          message: `Data flow: ${plural(flow.flowing, "task moves", "tasks move")} data and each must move data again after its restart; ${idle} idle${list}, exempt.`,
        },
      ];
    }
    case "learning":
      return [
        {
          severity: "info",
          code: "data-flow",
          message:
            "Data flow is visible in the per-task metrics; which tasks flow and which are idle is learned before the first step.",
        },
      ];
    case "unseen":
      return [
        {
          severity: "warn",
          code: "data-flow-unseen",
          message: `No per-task data-flow metrics${flow.workers.length > 0 ? ` on ${flow.workers.join(", ")}` : ""}: the gate judges by task statuses only and cannot see a task RUNNING without data. Export the per-task series (deploy/jmx-exporter/connect.yml).`,
        },
      ];
  }
}
