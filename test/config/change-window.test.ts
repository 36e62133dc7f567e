import { describe, expect, it } from "vitest";
import { type ChangeWindow, isWithinChangeWindow } from "../../src/config/change-window.js";
import { parseConfigText } from "../../src/config/load-config.js";

const berlinOffice: ChangeWindow = {
  days: ["mon", "tue", "wed", "thu", "fri"],
  start: "09:00",
  end: "17:00",
  timezone: "Europe/Berlin",
};
const nightShift: ChangeWindow = {
  days: ["fri"],
  start: "22:00",
  end: "02:00",
  timezone: "America/New_York",
};
const at = (iso: string) => Date.parse(iso);

describe("isWithinChangeWindow", () => {
  it("is always open without windows", () => {
    expect(isWithinChangeWindow([], at("2024-01-14T03:00:00Z"))).toEqual({ kind: "open" });
  });

  it("opens inside a window in its own time zone", () => {
    // 2024-01-15 is a Monday; Berlin is UTC+1 in January.
    expect(isWithinChangeWindow([berlinOffice], at("2024-01-15T08:30:00Z"))).toEqual({ kind: "open" });
    expect(isWithinChangeWindow([berlinOffice], at("2024-01-15T08:00:00Z"))).toEqual({ kind: "open" });
    expect(isWithinChangeWindow([berlinOffice], at("2024-01-15T15:59:00Z"))).toEqual({ kind: "open" });
  });

  it("names the next opening when closed", () => {
    expect(isWithinChangeWindow([berlinOffice], at("2024-01-15T07:30:00Z"))).toEqual({
      kind: "closed",
      next: "Mon 09:00 Europe/Berlin",
      nextMs: at("2024-01-15T08:00:00Z"),
    });
    expect(isWithinChangeWindow([berlinOffice], at("2024-01-15T16:00:00Z"))).toEqual({
      kind: "closed",
      next: "Tue 09:00 Europe/Berlin",
      nextMs: at("2024-01-16T08:00:00Z"),
    });
    expect(isWithinChangeWindow([berlinOffice], at("2024-01-19T16:30:00Z"))).toMatchObject({
      next: "Mon 09:00 Europe/Berlin",
      nextMs: at("2024-01-22T08:00:00Z"),
    });
  });

  it("handles a daylight-saving change before the next opening", () => {
    // Berlin moves to UTC+2 on 2024-03-31: Monday 09:00 is then 07:00 UTC.
    expect(isWithinChangeWindow([berlinOffice], at("2024-03-30T12:00:00Z"))).toEqual({
      kind: "closed",
      next: "Mon 09:00 Europe/Berlin",
      nextMs: at("2024-04-01T07:00:00Z"),
    });
    expect(isWithinChangeWindow([berlinOffice], at("2024-04-01T07:30:00Z"))).toEqual({ kind: "open" });
  });

  it("supports windows that cross midnight (they belong to the day they start)", () => {
    // New York is UTC-5 in January. Friday 2024-01-19 22:00 NY = 2024-01-20T03:00Z.
    expect(isWithinChangeWindow([nightShift], at("2024-01-20T04:00:00Z"))).toEqual({ kind: "open" });
    expect(isWithinChangeWindow([nightShift], at("2024-01-20T06:59:00Z"))).toEqual({ kind: "open" });
    expect(isWithinChangeWindow([nightShift], at("2024-01-20T07:00:00Z"))).toEqual({
      kind: "closed",
      next: "Fri 22:00 America/New_York",
      nextMs: at("2024-01-27T03:00:00Z"),
    });
    // Thursday 23:00 NY: Thursday is not a listed day.
    expect(isWithinChangeWindow([nightShift], at("2024-01-19T04:00:00Z"))).toMatchObject({ kind: "closed" });
  });

  it("compares local days across time zones", () => {
    const tokyo: ChangeWindow = { days: ["mon"], start: "09:00", end: "10:00", timezone: "Asia/Tokyo" };
    // Sunday 23:30 UTC is Monday 08:30 in Tokyo.
    expect(isWithinChangeWindow([tokyo], at("2024-01-14T23:30:00Z"))).toEqual({
      kind: "closed",
      next: "Mon 09:00 Asia/Tokyo",
      nextMs: at("2024-01-15T00:00:00Z"),
    });
    expect(isWithinChangeWindow([tokyo], at("2024-01-15T00:30:00Z"))).toEqual({ kind: "open" });
  });

  it("picks the earliest opening among several windows", () => {
    const result = isWithinChangeWindow([berlinOffice, nightShift], at("2024-01-19T20:00:00Z"));
    // Friday 21:00 Berlin: the office is closed, New York's Friday night opens at 04:00 Berlin.
    expect(result).toMatchObject({ kind: "closed", next: "Fri 22:00 America/New_York" });
    expect(isWithinChangeWindow([berlinOffice, nightShift], at("2024-01-20T03:30:00Z"))).toEqual({
      kind: "open",
    });
  });

  it("treats start === end as a whole day", () => {
    const allDay: ChangeWindow = { days: ["sun"], start: "00:00", end: "00:00", timezone: "UTC" };
    expect(isWithinChangeWindow([allDay], at("2024-01-14T00:00:00Z"))).toEqual({ kind: "open" });
    expect(isWithinChangeWindow([allDay], at("2024-01-14T23:59:00Z"))).toEqual({ kind: "open" });
    expect(isWithinChangeWindow([allDay], at("2024-01-15T00:00:00Z"))).toMatchObject({
      kind: "closed",
      next: "Sun 00:00 UTC",
    });
  });
});

describe("change windows in the configuration file", () => {
  it("accepts a valid window and reports bad times and zones at their paths", () => {
    const parsed = parseConfigText(`
slack:
  changeWindows:
    - { days: [mon], start: "25:00", end: "9:00", timezone: Mars/Olympus }
    - { days: [tue], start: "09:00", end: "17:00", timezone: Europe/Berlin }
clusters:
  prod:
    workers: [{ name: w1, url: "http://10.0.0.1:8083" }]
    executor: { kind: sim, controlUrl: "http://127.0.0.1:7070" }
`);
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind !== "invalid") return;
    const errors = parsed.problems.filter((p) => p.severity === "error").map((p) => p.path);
    expect(errors).toContain("slack.changeWindows[0].start");
    expect(errors).toContain("slack.changeWindows[0].end");
    expect(errors.some((path) => path.startsWith("slack.changeWindows[1]"))).toBe(false);
  });
});
