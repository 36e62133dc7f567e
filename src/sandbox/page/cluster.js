// The simulated cluster's panel of the sandbox page: counters, held tasks and the scheduled rebalance's countdown,
// each worker with its task chips, and the cluster's log.

import { escapeHtml } from "./blocks.js";
import { $, setHtml } from "./page-state.js";

function chip(task, stale) {
  const cls = `s-${task.state.toLowerCase()}`;
  const what = task.state === "STALLED" ? "RUNNING, moving no data" : task.state;
  return `<span class="chip ${cls}${stale ? " stale" : ""}" title="${escapeHtml(`${task.id}: ${what}${stale ? " (stale: its worker is down)" : ""}`)}"></span>`;
}

export function renderCluster(s) {
  const c = s.cluster;
  $("cluster-summary").textContent =
    `cluster demo · ${c.workers.length} workers · protocol ${c.protocol} · generation ${c.generation}`;
  const counters = [
    ["task moves", c.counters.taskMoves],
    ["interruptions", c.counters.taskInterruptions],
    ["rebalances", c.counters.rebalances],
    ["eager rebalances", c.counters.eagerRebalances],
    ["restarts", c.counters.restarts],
  ];
  setHtml(
    $("counters"),
    "counters",
    counters.map(([label, n]) => `<div class="counter"><b>${n}</b><span>${label}</span></div>`).join(""),
  );
  const remaining = c.delayDeadline === null ? null : Math.max(0, c.delayDeadline - c.now);
  const held = $("held");
  held.classList.toggle("active", c.heldTasks.length > 0);
  const heldHtml =
    c.heldTasks.length === 0
      ? `<span class="muted">No held tasks${remaining === null ? "" : ` · a scheduled rebalance is due in <span class="countdown">${(remaining / 1000).toFixed(1)} s</span>`}</span>`
      : `<b>${c.heldTasks.length} held</b> (assigned to nobody, waiting for their worker)${remaining === null ? "" : ` · delay ends in <span class="countdown">${(remaining / 1000).toFixed(1)} s</span>`}<div class="chips">${c.heldTasks.map((id) => chip({ id, state: "HELD" }, false)).join("")}</div>`;
  setHtml(held, "held", heldHtml);
  const workers = c.workers.map((w) => {
    const down = w.state !== "running";
    const chips = w.tasks.map((t) => chip(t, down && t.state === "RUNNING")).join("");
    return `<div class="worker ${escapeHtml(w.state)}"><div class="worker-head"><span class="worker-name">${escapeHtml(w.name)}</span>${w.leader ? `<span class="badge leader">★ leader</span>` : ""}<span class="badge version">${escapeHtml(w.version)}</span><span class="badge state-${escapeHtml(w.state)}">${escapeHtml(w.state)}</span><span class="worker-restarts">${w.restarts > 0 ? `restarted ×${w.restarts}` : ""} · ${w.tasks.length} tasks</span></div><div class="chips">${chips}</div></div>`;
  });
  const unassigned = c.unassigned.filter((t) => !c.heldTasks.includes(t.id));
  if (unassigned.length > 0)
    workers.push(
      `<div class="worker"><div class="worker-head"><span class="worker-name muted">no worker</span></div><div class="chips">${unassigned.map((t) => chip(t, false)).join("")}</div></div>`,
    );
  setHtml($("workers"), "workers", workers.join(""));
  setHtml($("log"), "log", s.log.map((line) => `<li>${escapeHtml(line)}</li>`).join(""));
}
