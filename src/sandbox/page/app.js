// The sandbox page: renders the channel, the open thread and the simulated cluster from the server's snapshots
// (server-sent events), and acts as the selected person: /connect-roll commands and button clicks go to the sandbox
// server, which signs them as Slack does and sends them to the bot. Plain browser JS, no dependencies.

import { blocksHtml, escapeHtml } from "./blocks.js";

const $ = (id) => document.getElementById(id);
const state = {
  snapshot: null,
  user: null,
  openThread: null,
  autoOpened: new Set(),
  seen: new Map(),
  rendered: {},
  tab: "channel",
};

function nameOf(id) {
  const s = state.snapshot;
  if (s === null) return id;
  if (id === s.bot.userId) return s.bot.name;
  return s.users.find((u) => u.id === id)?.name ?? s.groups[id] ?? id;
}
const names = { user: nameOf, channel: (id) => state.snapshot?.channel.name ?? id };

function timeOf(ts) {
  if (!state.seen.has(ts)) state.seen.set(ts, new Date());
  return state.seen.get(ts).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

function messageHtml(m, options = {}) {
  const bot = m.user === state.snapshot.bot.userId;
  const author = options.ephemeral ? (bot ? "connect-roll" : "Slackbot") : nameOf(m.user);
  const avatar =
    options.ephemeral && !bot ? `<div class="avatar slackbot">S</div>` : `<div class="avatar bot">⟳</div>`;
  const tag = options.ephemeral
    ? `<span class="ephemeral-tag">👁 Only visible to you</span>`
    : m.broadcast && options.inThread
      ? `<span class="broadcast-tag">↗ Also sent to the channel</span>`
      : "";
  const from =
    options.broadcastOf === undefined
      ? ""
      : `<div class="broadcast-of">replied to a thread: <button type="button" class="replies-link" data-open-thread="${escapeHtml(options.broadcastOf)}">view thread</button></div>`;
  const replies =
    options.replies === undefined || options.replies === 0
      ? ""
      : `<button type="button" class="replies-link" data-open-thread="${escapeHtml(m.ts)}">💬 ${options.replies} ${options.replies === 1 ? "reply" : "replies"}</button>`;
  const cls = ["message", options.ephemeral ? "ephemeral" : "", options.selected ? "selected" : ""].join(" ");
  return `<div class="${cls}" data-ts="${escapeHtml(m.ts)}">${avatar}<div class="body"><div class="meta"><span class="author">${escapeHtml(author)}</span><span class="app-badge">APP</span><span class="time">${timeOf(m.ts)}</span>${m.edited ? `<span class="edited">(edited)</span>` : ""}${tag}</div>${from}${blocksHtml(m, names)}${filesHtml(m.files ?? [])}${replies}</div></div>`;
}

/** Shared files: images inline at Slack's preview width (a click opens the full picture), others as links. */
function filesHtml(files) {
  return files
    .map((f) =>
      f.mimetype.startsWith("image/")
        ? `<figure class="file"><a href="${escapeHtml(f.url)}" target="_blank" rel="noopener"><img src="${escapeHtml(f.url)}" alt="${escapeHtml(f.altText)}" data-file="${escapeHtml(f.name)}"></a><figcaption>${escapeHtml(f.title)}</figcaption></figure>`
        : `<div class="file"><a href="${escapeHtml(f.url)}" target="_blank" rel="noopener">📎 ${escapeHtml(f.title)}</a></div>`,
    )
    .join("");
}

// ---------- panes ----------

function mine(ephemerals, threadTs) {
  return ephemerals.filter((e) => e.user === state.user && (e.threadTs ?? null) === threadTs);
}

function setHtml(el, key, html) {
  if (state.rendered[key] === html) return;
  const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  el.innerHTML = html;
  state.rendered[key] = html;
  if (atBottom) el.scrollTop = el.scrollHeight;
}

function renderChannel(s) {
  const items = [
    ...s.messages.map((m) => ({
      ts: m.ts,
      html: messageHtml(m, { replies: m.replies.length, selected: m.ts === state.openThread }),
    })),
    ...s.broadcasts.map((b) => ({ ts: b.ts, html: messageHtml(b, { broadcastOf: b.threadTs }) })),
    ...mine(s.ephemerals, null).map((e) => ({ ts: e.ts, html: messageHtml(e, { ephemeral: true }) })),
  ].sort((a, b) => Number(a.ts) - Number(b.ts));
  const empty = `<div class="empty">This is the very beginning of <b>#${escapeHtml(s.channel.name)}</b>.<br>Pick who you are below and type <code>${escapeHtml(s.scenario.command)}</code>.</div>`;
  setHtml($("channel-messages"), "channel", items.length === 0 ? empty : items.map((i) => i.html).join(""));
}

function renderThread(s) {
  const parent = s.messages.find((m) => m.ts === state.openThread);
  $("thread").hidden = parent === undefined;
  if (parent === undefined) return;
  $("thread-title").textContent = `· #${s.channel.name}`;
  const replies = [
    ...parent.replies.map((r) => ({ ts: r.ts, html: messageHtml(r, { inThread: true }) })),
    ...mine(s.ephemerals, parent.ts).map((e) => ({ ts: e.ts, html: messageHtml(e, { ephemeral: true }) })),
  ].sort((a, b) => Number(a.ts) - Number(b.ts));
  const divider = `<div class="thread-divider">${parent.replies.length} ${parent.replies.length === 1 ? "reply" : "replies"}</div>`;
  setHtml(
    $("thread-messages"),
    "thread",
    messageHtml(parent) + divider + replies.map((r) => r.html).join(""),
  );
}

function renderHome(s) {
  const home = $("home");
  const onHome = state.tab === "home";
  home.hidden = !onHome;
  $("channel-messages").hidden = onHome;
  $("tab-home").classList.toggle("active", onHome);
  $("tab-channel").classList.toggle("active", !onHome);
  $("tab-home").setAttribute("aria-selected", String(onHome));
  $("tab-channel").setAttribute("aria-selected", String(!onHome));
  if (!onHome) return;
  const blocks = s.homes[state.user];
  setHtml(
    home,
    "home",
    blocks === undefined
      ? `<div class="empty">Opening connect-roll's Home tab…</div>`
      : `<div class="home-view">${blocksHtml({ text: "", blocks }, names)}</div>`,
  );
}

function chip(task, stale) {
  const cls = `s-${task.state.toLowerCase()}`;
  const what = task.state === "STALLED" ? "RUNNING, moving no data" : task.state;
  return `<span class="chip ${cls}${stale ? " stale" : ""}" title="${escapeHtml(`${task.id}: ${what}${stale ? " (stale: its worker is down)" : ""}`)}"></span>`;
}

function renderCluster(s) {
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

function renderHeader(s) {
  $("scenario-title").textContent = `Scenario ${s.scenario.name}: ${s.scenario.title}`;
  $("scenario-note").textContent = s.scenario.note.join(" ");
  $("channel-name").textContent = s.channel.name;
  const picker = $("user-picker");
  if (picker.options.length === 0) {
    for (const u of s.users) picker.add(new Option(`@${u.name}`, u.id));
    state.user = picker.value;
    showRole();
    const hints = [
      s.scenario.command,
      "/connect-roll help",
      "/connect-roll status demo",
      "/connect-roll plan demo v3.7",
    ];
    $("hints").innerHTML =
      `try: ${hints.map((h) => `<button type="button" class="hint" data-hint="${escapeHtml(h)}">${escapeHtml(h)}</button>`).join("")}`;
  }
}

function render() {
  const s = state.snapshot;
  if (s === null) return;
  const newest = s.messages[s.messages.length - 1];
  if (newest !== undefined && !state.autoOpened.has(newest.ts)) {
    state.autoOpened.add(newest.ts);
    state.openThread = newest.ts;
  }
  renderHeader(s);
  renderChannel(s);
  renderHome(s);
  renderThread(s);
  renderCluster(s);
}

// ---------- actions ----------

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok && json.error !== "not a known command") console.warn(path, response.status, json);
  return json;
}

$("composer").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("composer-input");
  const text = input.value.trim();
  if (text === "") return;
  input.value = "";
  await post("/command", { user: state.user, text });
});

function showRole() {
  const user = state.snapshot?.users.find((u) => u.id === state.user);
  $("user-role").textContent = user === undefined ? "" : `${user.id} · ${user.role}`;
}

function openHome() {
  state.tab = "home";
  state.rendered = {};
  render();
  // As in Slack: opening the tab sends app_home_opened; the bot answers with views.publish.
  void post("/home", { user: state.user });
}

$("tab-home").addEventListener("click", openHome);
$("tab-channel").addEventListener("click", () => {
  state.tab = "channel";
  state.rendered = {};
  render();
});

$("user-picker").addEventListener("change", (event) => {
  state.user = event.target.value;
  showRole();
  state.rendered = {};
  if (state.tab === "home") openHome();
  else render();
});

$("thread-close").addEventListener("click", () => {
  state.openThread = null;
  render();
});

document.addEventListener("click", async (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const hint = target?.closest("[data-hint]");
  if (hint) {
    $("composer-input").value = hint.dataset.hint;
    $("composer-input").focus();
    return;
  }
  const open = target?.closest("[data-open-thread]");
  if (open) {
    state.openThread = open.dataset.openThread;
    render();
    return;
  }
  const button = target?.closest("button[data-action-id]");
  if (!button) return;
  if (button.dataset.confirm) {
    const c = JSON.parse(button.dataset.confirm);
    if (!window.confirm(`${c.title?.text ?? "Are you sure?"}\n\n${c.text?.text ?? ""}`)) return;
  }
  button.disabled = true;
  try {
    await post("/click", {
      user: state.user,
      messageTs: button.dataset.ts,
      actionId: button.dataset.actionId,
      value: button.dataset.value,
    });
  } finally {
    button.disabled = false;
  }
});

// ---------- live updates ----------

function connect() {
  const events = new EventSource("/events");
  events.onopen = () => {
    $("connection").textContent = "● live";
    $("connection").classList.add("live");
  };
  events.onmessage = (event) => {
    state.snapshot = JSON.parse(event.data);
    render();
  };
  events.onerror = () => {
    $("connection").textContent = "● reconnecting";
    $("connection").classList.remove("live");
  };
}
connect();
