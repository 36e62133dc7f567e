import type { ContextBlock, KnownBlock } from "@slack/types";

/**
 * Block Kit's limits (docs.slack.dev/reference/block-kit) and the helpers every view uses to stay inside them.
 * Views escape first, then truncate: `truncateText` never cuts an entity (`&amp;`) or a link (`<@U1>`) in half.
 */
export const MAX_BLOCKS = 50;
export const MAX_SECTION_TEXT = 3000;
export const MAX_HEADER_TEXT = 150;
export const MAX_CONTEXT_ELEMENTS = 10;
/** A context element's text object shares the text object limit. */
export const MAX_CONTEXT_TEXT = 3000;
export const MAX_BUTTON_TEXT = 75;
export const MAX_ACTION_ID = 255;
export const MAX_BUTTON_VALUE = 2000;
export const MAX_CONFIRM_TITLE = 100;
export const MAX_CONFIRM_TEXT = 300;
export const MAX_CONFIRM_BUTTON = 30;
/** Our own bound for the `text` fallback (Slack truncates at 40 000); notifications show only the start. */
export const MAX_FALLBACK_TEXT = 3000;
/** Our own bound for one line that came from the cluster (a reason, a finding, a trace). */
export const MAX_LINE = 300;

const ELLIPSIS = "…";

/** Escapes the three characters Slack's mrkdwn treats as control characters. Use on anything from users or clusters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Cuts `text` to at most `max` characters, ending with "…" when cut. Never leaves half an entity (`&am`),
 * half a link or mention (`<@U1`), an unclosed code span, or half a surrogate pair.
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= ELLIPSIS.length) return ELLIPSIS.slice(0, Math.max(0, max));
  let cut = text.slice(0, max - ELLIPSIS.length);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  cut = cut.replace(/&[a-z]*$/, "").replace(/<[^>]*$/, "");
  if ((cut.match(/```/g)?.length ?? 0) % 2 === 1) {
    const closing = "```";
    const room = max - ELLIPSIS.length - closing.length - 1;
    return `${cut.slice(0, Math.max(0, room))}${ELLIPSIS}\n${closing}`;
  }
  return `${cut}${ELLIPSIS}`;
}

/**
 * Keeps as many whole `lines` as fit in `maxChars` (joined with newlines), then a "+N more" line.
 * `limit` caps the number of lines kept even when more would fit.
 */
export function fitLines(
  lines: readonly string[],
  maxChars: number,
  limit = Number.POSITIVE_INFINITY,
): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const rest = lines.length - i - 1;
    const reserve = rest > 0 ? `\n+${rest} more`.length : 0;
    const sep = kept.length > 0 ? 1 : 0;
    if (kept.length >= limit) return [...kept, `+${lines.length - i} more`];
    if (kept.length === 0 && line.length + reserve > maxChars) {
      const first = truncateText(line, Math.max(1, maxChars - reserve));
      kept.push(first);
      used = first.length;
      continue;
    }
    if (used + sep + line.length + reserve > maxChars) return [...kept, `+${lines.length - i} more`];
    kept.push(line);
    used += sep + line.length;
  }
  return kept;
}

/** A context block with the "+N more" notice that replaces blocks dropped by `boundBlocks`. */
function moreBlock(count: number, what: string): ContextBlock {
  return { type: "context", elements: [{ type: "mrkdwn", text: `+${count} more ${what} not shown` }] };
}

/** Keeps at most `max` blocks: past the limit, the tail is replaced by one "+N more" context block. */
export function boundBlocks(blocks: readonly KnownBlock[], max = MAX_BLOCKS, what = "blocks"): KnownBlock[] {
  if (blocks.length <= max) return [...blocks];
  const keep = blocks.slice(0, max - 1);
  return [...keep, moreBlock(blocks.length - keep.length, what)];
}
