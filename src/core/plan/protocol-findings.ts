import type { Finding, StepWindow } from "./plan-types.js";
import type { ProtocolForecast } from "./predict-protocols.js";

/**
 * Findings about the protocol the group will negotiate during the rollout
 * (docs/connect-behaviour.md#protocol-negotiation).
 */
export function findProtocolFindings(forecast: ProtocolForecast): Finding[] {
  const findings: Finding[] = [];
  if (forecast.unknown.length > 0) {
    findings.push({
      severity: "warn",
      code: "protocol-unknown",
      message: `Protocol support unknown for ${forecast.unknown.join(", ")}: assumed eager-only (the worst case). Check the versions before approving.`,
    });
  }
  if (forecast.observedLower) {
    const { observed, predicted } = forecast.observedLower;
    findings.push({
      severity: "warn",
      code: "protocol-observed-lower",
      message: `The group negotiates ${observed} now, though the workers' versions and declared settings give ${predicted ?? "nothing"}: a worker sets connect.protocol=${observed}. Which one is unknown, so every step is planned under ${observed}; declare it per worker (workers[].connectProtocol) for a precise plan.`,
    });
  }
  if (forecast.eagerWindows.length > 0) {
    findings.push({
      severity: "warn",
      code: "eager-window",
      message: `The group runs the eager protocol during ${describe(forecast.eagerWindows)}: every rebalance stops every task in the cluster. Needs approval.`,
    });
  }
  if (forecast.compatibleWindows.length > 0) {
    findings.push({
      severity: "warn",
      code: "compatible-window",
      message: `The group runs the compatible protocol during ${describe(forecast.compatibleWindows)}: internal request signing is off while it lasts.`,
    });
  }
  return findings;
}

function describe(windows: readonly StepWindow[]): string {
  return windows
    .map((w) => (w.fromStep === w.toStep ? `step ${w.fromStep}` : `steps ${w.fromStep}–${w.toStep}`))
    .join(", ");
}
