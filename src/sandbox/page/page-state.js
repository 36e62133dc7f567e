// What the sandbox page holds between renders, shared by its modules: the latest snapshot, who the page acts as, the
// open thread and tab, and the HTML last written to each pane (so an unchanged pane is not rewritten).

export const $ = (id) => document.getElementById(id);
export const state = {
  snapshot: null,
  user: null,
  openThread: null,
  autoOpened: new Set(),
  seen: new Map(),
  rendered: {},
  tab: "channel",
};

/** Writes a pane's HTML when it changed, keeping it scrolled to the bottom if it was there. */
export function setHtml(el, key, html) {
  if (state.rendered[key] === html) return;
  const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  el.innerHTML = html;
  state.rendered[key] = html;
  if (atBottom) el.scrollTop = el.scrollHeight;
}
