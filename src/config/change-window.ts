/**
 * Change windows: when a rollout may start. Pure; `Intl.DateTimeFormat` does the time-zone arithmetic.
 * A window belongs to the day it starts on; `end <= start` means it crosses midnight (22:00–02:00 on "fri"
 * is open Friday 22:00 to Saturday 02:00; `start === end` would be a whole 24 hours, but config check refuses equal times as an empty-looking window). An empty list is always open.
 */

const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface ChangeWindow {
  days: readonly Weekday[];
  /** "HH:MM", 24-hour, local to `timezone`. */
  start: string;
  end: string;
  /** IANA name, e.g. "Europe/Berlin". */
  timezone: string;
}

export type ChangeWindowState = { kind: "open" } | { kind: "closed"; next: string; nextMs: number | null };

export function isWithinChangeWindow(windows: readonly ChangeWindow[], nowMs: number): ChangeWindowState {
  if (windows.length === 0) return { kind: "open" };
  if (windows.some((window) => isOpen(window, nowMs))) return { kind: "open" };
  let best: { at: number; window: ChangeWindow; day: Weekday } | undefined;
  for (const window of windows) {
    const candidate = nextOpening(window, nowMs);
    if (candidate !== undefined && (best === undefined || candidate.at < best.at)) {
      best = { ...candidate, window };
    }
  }
  if (best === undefined)
    return { kind: "closed", next: "no opening in the configured windows", nextMs: null };
  const day = best.day.charAt(0).toUpperCase() + best.day.slice(1);
  return { kind: "closed", next: `${day} ${best.window.start} ${best.window.timezone}`, nextMs: best.at };
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  weekday: number;
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timezone, f);
  }
  return f;
}

function localTime(timezone: string, ms: number): LocalTime & { seconds: number } {
  const parts: Record<string, number> = {};
  for (const part of formatter(timezone).formatToParts(new Date(ms))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const year = parts.year ?? 1970;
  const month = parts.month ?? 1;
  const day = parts.day ?? 1;
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return {
    year,
    month,
    day,
    weekday,
    minutes: (parts.hour ?? 0) * 60 + (parts.minute ?? 0),
    seconds: parts.second ?? 0,
  };
}

function toMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(":");
  return Number(h) * 60 + Number(m);
}

function hasDay(window: ChangeWindow, weekday: number): boolean {
  const name = WEEKDAYS[((weekday % 7) + 7) % 7];
  return name !== undefined && window.days.includes(name);
}

function isOpen(window: ChangeWindow, nowMs: number): boolean {
  const local = localTime(window.timezone, nowMs);
  const start = toMinutes(window.start);
  const end = toMinutes(window.end);
  const t = local.minutes;
  if (start < end) return hasDay(window, local.weekday) && t >= start && t < end;
  // Crosses midnight (or a full day when start === end): opened today, or opened yesterday and not yet over.
  return (hasDay(window, local.weekday) && t >= start) || (hasDay(window, local.weekday - 1) && t < end);
}

/** The UTC instant of a local wall-clock time (two offset corrections handle DST changes). */
function localToUtc(timezone: string, year: number, month: number, day: number, minutes: number): number {
  const wall = Date.UTC(year, month - 1, day, Math.floor(minutes / 60), minutes % 60);
  let guess = wall;
  for (let i = 0; i < 2; i += 1) {
    const seen = localTime(timezone, guess);
    const seenWall =
      Date.UTC(seen.year, seen.month - 1, seen.day, Math.floor(seen.minutes / 60), seen.minutes % 60) +
      seen.seconds * 1000;
    guess += wall - seenWall;
  }
  return guess;
}

function nextOpening(window: ChangeWindow, nowMs: number): { at: number; day: Weekday } | undefined {
  const local = localTime(window.timezone, nowMs);
  const start = toMinutes(window.start);
  for (let offset = 0; offset <= 7; offset += 1) {
    const date = new Date(Date.UTC(local.year, local.month - 1, local.day + offset));
    const weekday = date.getUTCDay();
    const name = WEEKDAYS[weekday];
    if (name === undefined || !window.days.includes(name)) continue;
    const at = localToUtc(
      window.timezone,
      date.getUTCFullYear(),
      date.getUTCMonth() + 1,
      date.getUTCDate(),
      start,
    );
    if (at > nowMs) return { at, day: name };
  }
  return undefined;
}
