import type { KnownBlock } from "@slack/types";
import type { ViewMessage } from "../../../src/chat/views/blocks.js";
import {
  MAX_ACTION_ID,
  MAX_BLOCKS,
  MAX_BUTTON_TEXT,
  MAX_BUTTON_VALUE,
  MAX_CONFIRM_TEXT,
  MAX_CONFIRM_TITLE,
  MAX_CONTEXT_ELEMENTS,
  MAX_CONTEXT_TEXT,
  MAX_FALLBACK_TEXT,
  MAX_HEADER_TEXT,
  MAX_SECTION_TEXT,
} from "../../../src/chat/views/limits.js";

/** A readable rendering of a message for snapshots: one tagged paragraph per block. */
export function blockText(message: ViewMessage): string {
  const out = [`text: ${message.text}`];
  for (const block of message.blocks) out.push(describe(block));
  return `\n${out.join("\n")}\n`;
}

function describe(block: KnownBlock): string {
  switch (block.type) {
    case "header":
      return `[header] ${block.text.text}`;
    case "section":
      return `[section]\n${indent(block.text?.text ?? "")}`;
    case "context":
      return `[context] ${block.elements.map((e) => ("text" in e ? e.text : "[image]")).join(" | ")}`;
    case "divider":
      return "[divider]";
    case "actions":
      return `[actions ${block.block_id ?? ""}]\n${block.elements
        .map((e) => {
          if (e.type !== "button") return `  ${e.type}`;
          const confirm = e.confirm
            ? `\n      confirm: ${e.confirm.title?.text} / ${e.confirm.text.text} [${e.confirm.confirm?.text} | ${e.confirm.deny?.text}]`
            : "";
          return `  (${e.text.text}) ${e.action_id} ${e.style ?? "default"} value=${e.value}${confirm}`;
        })
        .join("\n")}`;
    default:
      return `[${block.type}]`;
  }
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}

/** Every Block Kit limit the message breaks (empty when it is within them all). */
export function limitViolations(message: ViewMessage): string[] {
  const v: string[] = [];
  if (message.text.length === 0) v.push("empty text");
  if (message.text.length > MAX_FALLBACK_TEXT) v.push(`text ${message.text.length}`);
  if (message.blocks.length > MAX_BLOCKS) v.push(`${message.blocks.length} blocks`);
  for (const [i, b] of message.blocks.entries()) {
    if (b.type === "header" && b.text.text.length > MAX_HEADER_TEXT)
      v.push(`header ${i}: ${b.text.text.length}`);
    if (b.type === "section") {
      const len = b.text?.text.length ?? 0;
      if (len > MAX_SECTION_TEXT || len === 0) v.push(`section ${i}: ${len}`);
    }
    if (b.type === "context") {
      if (b.elements.length > MAX_CONTEXT_ELEMENTS || b.elements.length === 0)
        v.push(`context ${i}: ${b.elements.length} elements`);
      for (const e of b.elements)
        if ("text" in e && e.text.length > MAX_CONTEXT_TEXT) v.push(`context ${i} text`);
    }
    if (b.type === "actions") {
      for (const e of b.elements) {
        if (e.type !== "button") continue;
        if (e.text.text.length > MAX_BUTTON_TEXT) v.push(`button text ${e.text.text}`);
        if ((e.action_id ?? "").length > MAX_ACTION_ID) v.push(`action_id ${e.action_id}`);
        if ((e.value ?? "").length > MAX_BUTTON_VALUE) v.push("button value");
        if (e.confirm) {
          if ((e.confirm.title?.text.length ?? 0) > MAX_CONFIRM_TITLE)
            v.push(`confirm title ${e.confirm.title?.text.length}`);
          if (e.confirm.text.text.length > MAX_CONFIRM_TEXT)
            v.push(`confirm text ${e.confirm.text.text.length}`);
        }
      }
    }
  }
  return v;
}
