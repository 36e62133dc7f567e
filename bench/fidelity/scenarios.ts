import { FLOW_SCENARIOS } from "./flow-scenarios.js";
import { MORE_SCENARIOS } from "./more-scenarios.js";
import { RESTART_SCENARIOS } from "./restart-scenarios.js";
import type { Scenario } from "./scenario-support.js";

export type { Observation, Scenario } from "./scenario-support.js";

/** Every fidelity scenario, in the order they run (those of one cluster shape share the cluster). */
export const SCENARIOS: readonly Scenario[] = [...RESTART_SCENARIOS, ...MORE_SCENARIOS, ...FLOW_SCENARIOS];
