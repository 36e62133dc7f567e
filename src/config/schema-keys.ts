import type { z } from "zod";
import { editDistance } from "./did-you-mean.js";

/**
 * Walks a zod schema along a value's path to the strict object found there, so an unknown key can be answered with
 * the keys that are allowed ("did you mean metricsUrl?"). Discriminated unions pick their member by the value's tag.
 */

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly valueType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly discriminator?: string;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { def: Def }).def;
}

function unwrap(schema: z.ZodType, value: unknown): z.ZodType {
  let current = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(current);
    if (def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else if (def.type === "union" && def.options) {
      const tag = def.discriminator;
      const chosen =
        tag === undefined || typeof value !== "object" || value === null
          ? undefined
          : def.options.find((o) => {
              const field = defOf(o).shape?.[tag];
              const values = field
                ? (field as unknown as { def: { values?: unknown[] } }).def.values
                : undefined;
              return values?.includes((value as Record<string, unknown>)[tag]) ?? false;
            });
      if (!chosen) return current;
      current = chosen;
    } else return current;
  }
  return current;
}

/** The keys allowed at `path` of `root` (null when the path does not lead to an object schema). */
export function knownKeysAt(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  root: unknown,
): readonly string[] | null {
  let current = schema;
  let value = root;
  for (const key of path) {
    current = unwrap(current, value);
    const def = defOf(current);
    const next =
      def.type === "object"
        ? def.shape?.[String(key)]
        : def.type === "record"
          ? def.valueType
          : def.type === "array"
            ? def.element
            : undefined;
    if (!next) return null;
    current = next;
    value =
      typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  const def = defOf(unwrap(current, value));
  return def.type === "object" && def.shape ? Object.keys(def.shape) : null;
}

/** The known key closest to a misspelt one, or null when none is close (case-insensitive edit distance). */
export function closestKey(key: string, known: readonly string[]): string | null {
  const target = key.toLowerCase();
  const cutoff = Math.max(1, Math.floor(target.length / 3));
  let best: { key: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(target, candidate.toLowerCase());
    if (distance <= cutoff && (best === null || distance < best.distance))
      best = { key: candidate, distance };
  }
  return best?.key ?? null;
}
