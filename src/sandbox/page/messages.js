// A Slack message as the sandbox page shows it: author, avatar, time, tags, its blocks, shared files and the link to
// its replies.

import { blocksHtml, escapeHtml } from "./blocks.js";
import { state } from "./page-state.js";

function nameOf(id) {
  const s = state.snapshot;
  if (s === null) return id;
  if (id === s.bot.userId) return s.bot.name;
  return s.users.find((u) => u.id === id)?.name ?? s.groups[id] ?? id;
}
/** Resolves the ids that mrkdwn and blocks mention to names, from the latest snapshot. */
export const names = { user: nameOf, channel: (id) => state.snapshot?.channel.name ?? id };

function timeOf(ts) {
  if (!state.seen.has(ts)) state.seen.set(ts, new Date());
  return state.seen.get(ts).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function messageHtml(m, options = {}) {
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
