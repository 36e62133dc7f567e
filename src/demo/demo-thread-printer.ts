import type { StoredMessage, WebApiStore } from "../sandbox/web-api-store.js";

/**
 * The terminal's view of the demo channel: a plain-text rendering of Block Kit messages. New messages are printed
 * whole; when one changes (checked at most once per `intervalMs`) only its changed lines are printed, under
 * "(updated)", so `npm run demo` stays readable without the browser.
 */
export interface ThreadPrinterOptions {
  readonly store: WebApiStore;
  readonly channel: string;
  readonly write: (text: string) => void;
  /** Display names for `<@U…>` and `<!subteam^S…>`. */
  readonly names: Readonly<Record<string, string>>;
  readonly intervalMs?: number;
}

export function startThreadPrinter(o: ThreadPrinterOptions): () => void {
  const printed = new Map<string, string>();
  const ephemeralsSeen = new Set<string>();
  let timer: NodeJS.Timeout | undefined;

  function flush(): void {
    timer = undefined;
    const out: string[] = [];
    for (const parent of o.store.channelMessages(o.channel)) {
      const thread = o.store.thread(o.channel, parent.ts);
      const all = [parent, ...(thread?.replies ?? [])];
      all.forEach((message, index) => {
        const text = renderMessageText(message, o.names);
        const before = printed.get(message.ts);
        if (before === text) return;
        printed.set(message.ts, text);
        const label = `#${o.names[o.channel] ?? o.channel} · ${index === 0 ? "parent" : `reply ${index}`}`;
        if (before === undefined) {
          out.push(`── ${label} ──`, indent(text, "   "));
          return;
        }
        const old = new Set(before.split("\n"));
        const changed = text.split("\n").filter((line) => !old.has(line));
        if (changed.length > 0) out.push(`── ${label} (updated) ──`, indent(changed.join("\n"), "   "));
      });
    }
    for (const e of o.store.ephemerals(o.channel)) {
      if (ephemeralsSeen.has(e.ts)) continue;
      ephemeralsSeen.add(e.ts);
      const who = o.names[e.user] ?? e.user;
      out.push(`── only visible to @${who} ──`, indent(renderMessageText(e, o.names), "   "));
    }
    if (out.length > 0) o.write(`${out.join("\n")}\n\n`);
  }

  const off = o.store.onChange(() => {
    timer ??= setTimeout(flush, o.intervalMs ?? 1_500);
  });
  return () => {
    off();
    if (timer !== undefined) clearTimeout(timer);
  };
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

type Block = {
  type?: unknown;
  text?: { text?: unknown };
  fields?: { text?: unknown }[];
  elements?: { type?: unknown; text?: unknown | { text?: unknown } }[];
};

/** A message's blocks as plain text (its fallback text when it has no blocks). */
export function renderMessageText(
  message: Pick<StoredMessage, "text" | "blocks" | "files">,
  names: Readonly<Record<string, string>> = {},
): string {
  const files = (message.files ?? []).map((f) => `📎 ${f.title} (${f.url})`);
  const blocks = (message.blocks ?? []) as Block[];
  if (blocks.length === 0)
    return [...(message.text === "" ? [] : [plainMrkdwn(message.text, names)]), ...files].join("\n");
  const lines: string[] = [];
  for (const block of blocks) {
    const text = typeof block.text?.text === "string" ? block.text.text : "";
    switch (block.type) {
      case "header":
        lines.push(text.toUpperCase());
        break;
      case "section":
        if (text !== "") lines.push(plainMrkdwn(text, names));
        for (const field of block.fields ?? [])
          if (typeof field.text === "string") lines.push(plainMrkdwn(field.text, names));
        break;
      case "context":
        lines.push(
          (block.elements ?? [])
            .map((e) => (typeof e.text === "string" ? plainMrkdwn(e.text, names) : ""))
            .filter((t) => t !== "")
            .join(" · "),
        );
        break;
      case "actions":
        lines.push(
          (block.elements ?? [])
            .map((e) => {
              const label =
                typeof e.text === "object" && e.text !== null
                  ? (e.text as { text?: unknown }).text
                  : undefined;
              return `[ ${typeof label === "string" ? label : "button"} ]`;
            })
            .join(" "),
        );
        break;
      case "divider":
        lines.push("────────────");
        break;
      default:
        if (text !== "") lines.push(plainMrkdwn(text, names));
    }
  }
  return [...lines, ...files].join("\n");
}

/** mrkdwn to plain text: mentions and links resolved, entities decoded, the markup characters kept. */
export function plainMrkdwn(text: string, names: Readonly<Record<string, string>> = {}): string {
  return text
    .replace(/<([^<>]+)>/g, (_all, inner: string) => {
      const [target = "", label] = inner.split("|", 2);
      if (target.startsWith("@")) return `@${names[target.slice(1)] ?? label ?? target.slice(1)}`;
      if (target.startsWith("#")) return `#${label ?? names[target.slice(1)] ?? target.slice(1)}`;
      if (target.startsWith("!subteam^")) return `@${names[target.slice(9)] ?? label ?? target.slice(9)}`;
      if (target.startsWith("!")) return `@${label ?? target.slice(1)}`;
      return label === undefined ? target : `${label} (${target})`;
    })
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
