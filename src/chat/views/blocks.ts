import type {
  ActionsBlock,
  Button,
  ConfirmationDialog,
  ContextBlock,
  DividerBlock,
  HeaderBlock,
  KnownBlock,
  SectionBlock,
} from "@slack/types";
import type { SlackMessage } from "../slack-web-api.js";
import {
  boundBlocks,
  fitLines,
  MAX_BUTTON_TEXT,
  MAX_CONFIRM_BUTTON,
  MAX_CONFIRM_TEXT,
  MAX_CONFIRM_TITLE,
  MAX_CONTEXT_ELEMENTS,
  MAX_CONTEXT_TEXT,
  MAX_FALLBACK_TEXT,
  MAX_HEADER_TEXT,
  MAX_SECTION_TEXT,
  truncateText,
} from "./limits.js";

/** What every view returns: the notifier's `SlackMessage`, with blocks always present. */
export interface ViewMessage extends SlackMessage {
  text: string;
  blocks: readonly KnownBlock[];
}

/** A message with its fallback text bounded and its blocks bounded to 50. */
export function message(text: string, blocks: readonly KnownBlock[], what = "blocks"): ViewMessage {
  return { text: truncateText(text, MAX_FALLBACK_TEXT), blocks: boundBlocks(blocks, undefined, what) };
}

/** Header block; `text` is plain text (not escaped: Slack shows it as is). */
export function header(text: string): HeaderBlock {
  return {
    type: "header",
    text: { type: "plain_text", text: truncateText(text, MAX_HEADER_TEXT), emoji: true },
  };
}

/** Section of mrkdwn; `text` must already be escaped. */
export function section(text: string): SectionBlock {
  return { type: "section", text: { type: "mrkdwn", text: truncateText(text, MAX_SECTION_TEXT) } };
}

/** Sections holding `lines` (already escaped), packed into as few sections as fit. */
export function sectionsOf(lines: readonly string[], maxSections = 5): SectionBlock[] {
  const out: SectionBlock[] = [];
  let rest = [...lines];
  while (rest.length > 0 && out.length < maxSections) {
    const isLast = out.length === maxSections - 1;
    const fitted = fitLines(rest, MAX_SECTION_TEXT);
    const more = fitted.length > 0 && /^\+\d+ more$/.test(fitted[fitted.length - 1] ?? "");
    const taken = more ? fitted.length - 1 : fitted.length;
    if (isLast || !more) {
      out.push(section(fitted.join("\n")));
      return out;
    }
    out.push(section(fitted.slice(0, taken).join("\n")));
    rest = rest.slice(Math.max(1, taken));
  }
  return out;
}

/** Lines (already escaped) in a code block, bounded to one section with "+N more". */
export function codeSection(title: string, lines: readonly string[]): SectionBlock {
  const room = MAX_SECTION_TEXT - title.length - "\n```\n\n```".length;
  return section(`${title}\n\`\`\`\n${fitLines(lines, room).join("\n")}\n\`\`\``);
}

/** Context block of mrkdwn elements (already escaped), at most 10. */
export function context(...texts: readonly string[]): ContextBlock {
  const kept = texts.filter((t) => t.length > 0).slice(0, MAX_CONTEXT_ELEMENTS);
  return {
    type: "context",
    elements: kept.map((t) => ({ type: "mrkdwn" as const, text: truncateText(t, MAX_CONTEXT_TEXT) })),
  };
}

export function divider(): DividerBlock {
  return { type: "divider" };
}

export interface ConfirmSpec {
  title: string;
  text: string;
  confirm: string;
  deny: string;
  style?: "primary" | "danger";
}

/** A confirm dialog; all texts plain, bounded to Block Kit's limits. */
export function confirmDialog(spec: ConfirmSpec): ConfirmationDialog {
  const dialog: ConfirmationDialog = {
    title: { type: "plain_text", text: truncateText(spec.title, MAX_CONFIRM_TITLE) },
    text: { type: "plain_text", text: truncateText(spec.text, MAX_CONFIRM_TEXT) },
    confirm: { type: "plain_text", text: truncateText(spec.confirm, MAX_CONFIRM_BUTTON) },
    deny: { type: "plain_text", text: truncateText(spec.deny, MAX_CONFIRM_BUTTON) },
  };
  return spec.style === undefined ? dialog : { ...dialog, style: spec.style };
}

export interface ButtonSpec {
  text: string;
  actionId: string;
  value: string;
  style?: "primary" | "danger";
  confirm?: ConfirmationDialog;
}

export function button(spec: ButtonSpec): Button {
  const b: Button = {
    type: "button",
    text: { type: "plain_text", text: truncateText(spec.text, MAX_BUTTON_TEXT), emoji: true },
    action_id: spec.actionId,
    value: spec.value,
  };
  if (spec.style !== undefined) b.style = spec.style;
  if (spec.confirm !== undefined) b.confirm = spec.confirm;
  return b;
}

export function actions(blockId: string, elements: readonly Button[]): ActionsBlock {
  return { type: "actions", block_id: truncateText(blockId, 255), elements: [...elements] };
}
