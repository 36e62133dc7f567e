import type { App, BlockButtonAction } from "@slack/bolt";
import { ActionId } from "../../action-ids.js";
import {
  type ApprovalActionDeps,
  createApprovalActionListener,
  DECISION_OF_ACTION,
} from "./approval-decision.js";

/** Registers one listener per approval button (`ActionId`: Approve, Abort, Keep waiting, Continue anyway, …). */
export function registerApprovalActions(app: App, deps: ApprovalActionDeps): void {
  for (const id of Object.values(ActionId)) {
    app.action<BlockButtonAction>(id, createApprovalActionListener(DECISION_OF_ACTION[id], deps));
  }
}
