/**
 * Our model of Kafka Connect's `EagerAssignor` (protocol "default"): every rebalance stops everything and
 * assigns everything afresh. Connectors, then tasks, are dealt round-robin over the members sorted by member id,
 * with one circular iterator shared by both passes. There is no scheduled delay and no state between rounds.
 */
import { AppError, ErrorCode } from "../../core/errors.js";
import type { AssignmentRoundInput, AssignmentRoundResult, Assignor, MemberAssignment } from "./types.js";
import { compareConnectors, compareStrings, compareTaskIds } from "./worker-load.js";

export interface EagerAssignor extends Assignor {
  readonly kind: "eager";
}

function tasksByConnector(tasks: readonly string[]): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const task of tasks) {
    const slash = task.lastIndexOf("/");
    const connector = slash < 0 ? task : task.slice(0, slash);
    const list = result.get(connector) ?? [];
    list.push(task);
    result.set(connector, list);
  }
  return result;
}

export function createEagerAssignor(): EagerAssignor {
  function performAssignment(input: AssignmentRoundInput): AssignmentRoundResult {
    const ids = input.members.map((m) => m.memberId).sort(compareStrings);
    if (new Set(ids).size !== ids.length) {
      throw new AppError(ErrorCode.SimInvalid, "Duplicate member id in assignment round", {
        details: { generation: input.generation },
      });
    }
    const connectors = [...new Set(input.configured.connectors)].sort(compareConnectors);
    const tasks = tasksByConnector([...new Set(input.configured.tasks)]);
    const newConnectors = new Map<string, string[]>(ids.map((id) => [id, []]));
    const newTasks = new Map<string, string[]>(ids.map((id) => [id, []]));

    let cursor = 0;
    const nextMember = (): string | undefined => {
      const id = ids[cursor % ids.length];
      cursor += 1;
      return id;
    };
    if (ids.length > 0) {
      for (const connector of connectors) {
        const id = nextMember();
        if (id !== undefined) newConnectors.get(id)?.push(connector);
      }
      for (const connector of connectors) {
        for (const task of [...(tasks.get(connector) ?? [])].sort(compareTaskIds)) {
          const id = nextMember();
          if (id !== undefined) newTasks.get(id)?.push(task);
        }
      }
    }

    const byMember = new Map<string, MemberAssignment>();
    for (const member of [...input.members].sort((a, b) => compareStrings(a.memberId, b.memberId))) {
      byMember.set(member.memberId, {
        // The eager protocol revokes everything a member holds before every rebalance (onJoinPrepare).
        revoked: { connectors: [...member.owned.connectors], tasks: [...member.owned.tasks] },
        assigned: {
          connectors: newConnectors.get(member.memberId) ?? [],
          tasks: newTasks.get(member.memberId) ?? [],
        },
      });
    }
    return { byMember, delayMs: 0 };
  }

  return { kind: "eager", performAssignment };
}
