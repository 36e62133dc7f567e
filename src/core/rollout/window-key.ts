/**
 * Which window a step belongs to (see `RolloutState.openWindow`): a pace window (`Plan.windows[window]`: followers
 * restarted inside one scheduled-delay window) or an eager window (from its first step: the group is stop-the-world
 * until its last old worker is gone).
 */
export type WindowKey =
  | { readonly kind: "eager"; readonly fromStep: number }
  | { readonly kind: "pace"; readonly window: number };

export function eagerWindowKey(fromStep: number): WindowKey {
  return { kind: "eager", fromStep };
}

export function paceWindowKey(window: number): WindowKey {
  return { kind: "pace", window };
}

/** True when both name the same window (two nulls: no window, so not the same). */
export function sameWindow(a: WindowKey | null, b: WindowKey | null): boolean {
  if (a === null || b === null || a.kind !== b.kind) return false;
  return a.kind === "eager"
    ? b.kind === "eager" && a.fromStep === b.fromStep
    : b.kind === "pace" && a.window === b.window;
}
