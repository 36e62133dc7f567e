// Slack's message formatting for the sandbox page: mrkdwn (*bold*, _italic_, ~strike~, `code`, ```blocks```,
// <@mentions>, <url|links>, entities) and the Block Kit blocks the bot sends (header, section, context, actions with
// buttons and their confirm dialogs, divider). `names` resolves ids: { user(id), channel(id) }.

export const escapeHtml = (s) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
const decodeEntities = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
const EMOJI = { white_check_mark: "✅", warning: "⚠️", x: "❌", hourglass: "⌛", rocket: "🚀", tada: "🎉" };

function token(inner, names) {
  const [target, label] = inner.split("|", 2);
  if (target.startsWith("@"))
    return `<span class="mention">@${escapeHtml(names.user(target.slice(1)))}</span>`;
  if (target.startsWith("#"))
    return `<span class="mention">#${escapeHtml(label ?? names.channel(target.slice(1)))}</span>`;
  if (target.startsWith("!subteam^"))
    return `<span class="mention">@${escapeHtml(names.user(target.slice(9)))}</span>`;
  if (target.startsWith("!date^")) return escapeHtml(label ?? "a date");
  if (target.startsWith("!")) return `<span class="mention">@${escapeHtml(target.slice(1))}</span>`;
  const href = decodeEntities(target);
  if (!/^(https?:|mailto:)/i.test(href)) return escapeHtml(decodeEntities(label ?? target));
  return `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(decodeEntities(label ?? target))}</a>`;
}

/** Slack mrkdwn: ```blocks```, `code`, <links|and> <@mentions>, *bold*, _italic_, ~strike~, entities, newlines. */
export function mrkdwn(text, names) {
  const held = [];
  const hold = (html) => `\uE000${held.push(html) - 1}\uE001`;
  let s = String(text);
  s = s.replace(/```([\s\S]*?)```/g, (_m, code) =>
    hold(`<pre class="code-block">${escapeHtml(decodeEntities(code.replace(/^\n/, "")))}</pre>`),
  );
  s = s.replace(/`([^`\n]+)`/g, (_m, code) => hold(`<code>${escapeHtml(decodeEntities(code))}</code>`));
  s = s.replace(/<([^<>\n]+)>/g, (_m, inner) => hold(token(inner, names)));
  s = escapeHtml(decodeEntities(s));
  s = s.replace(/:([a-z_]+):/g, (m, name) => EMOJI[name] ?? m);
  s = s.replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)\*(?!\w)/g, "$1<strong>$2</strong>");
  s = s.replace(/(^|[^\w_])_(?!\s)([^_\n]+?)_(?!\w)/g, "$1<em>$2</em>");
  s = s.replace(/(^|[^\w~])~(?!\s)([^~\n]+?)~(?!\w)/g, "$1<del>$2</del>");
  s = s.replace(/\n/g, "<br>");
  return s.replace(/\uE000(\d+)\uE001/g, (_m, i) => held[Number(i)] ?? "");
}

const textOf = (obj, names) =>
  obj === undefined || obj === null
    ? ""
    : obj.type === "mrkdwn"
      ? mrkdwn(obj.text, names)
      : escapeHtml(obj.text);

// ---------- blocks ----------

function buttonHtml(el, messageTs) {
  const style = el.style === "primary" || el.style === "danger" ? ` ${el.style}` : "";
  const confirm = el.confirm === undefined ? "" : ` data-confirm="${escapeHtml(JSON.stringify(el.confirm))}"`;
  return `<button type="button" class="block-button${style}" data-action-id="${escapeHtml(el.action_id)}" data-value="${escapeHtml(el.value ?? "")}" data-ts="${escapeHtml(messageTs)}"${confirm}>${escapeHtml(el.text?.text ?? "button")}</button>`;
}

export function blocksHtml(message, names) {
  if (message.blocks.length === 0) return `<div class="blk-section">${mrkdwn(message.text, names)}</div>`;
  return message.blocks
    .map((b) => {
      switch (b.type) {
        case "header":
          return `<div class="blk-header">${escapeHtml(b.text?.text ?? "")}</div>`;
        case "section": {
          const fields = (b.fields ?? []).map((f) => `<div>${textOf(f, names)}</div>`).join("");
          const accessory =
            b.accessory?.type === "button"
              ? `<div class="blk-actions">${buttonHtml(b.accessory, message.ts)}</div>`
              : "";
          return `<div class="blk-section">${textOf(b.text, names)}${fields === "" ? "" : `<div class="blk-fields">${fields}</div>`}${accessory}</div>`;
        }
        case "context":
          return `<div class="blk-context">${(b.elements ?? [])
            .filter((e) => e.type !== "image")
            .map((e) => `<span>${textOf(e, names)}</span>`)
            .join("")}</div>`;
        case "actions":
          return `<div class="blk-actions">${(b.elements ?? [])
            .filter((e) => e.type === "button")
            .map((e) => buttonHtml(e, message.ts))
            .join("")}</div>`;
        case "divider":
          return `<hr class="blk-divider">`;
        default:
          return `<div class="blk-unknown">[${escapeHtml(b.type)} block]</div>`;
      }
    })
    .join("");
}
