// The sandbox page: renders the channel, the open thread and the simulated cluster from the server's snapshots
// (server-sent events), and acts as the selected person: /connect-roll commands and button clicks go to the sandbox
// server, which signs them as Slack does and sends them to the bot. Plain browser JS modules, no dependencies: the
// message markup is in messages.js, the cluster panel in cluster.js, the state they share in page-state.js.

import { blocksHtml, escapeHtml } from "./blocks.js";
import { renderCluster } from "./cluster.js";
import { messageHtml, names } from "./messages.js";
import { $, setHtml, state } from "./page-state.js";

// ---------- panes ----------

function mine(ephemerals, threadTs) {
  return ephemerals.filter((e) => e.user === state.user && (e.threadTs ?? null) === threadTs);
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
