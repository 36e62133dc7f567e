/**
 * A count with its noun, in the number the count takes: "0 tasks", "1 task", "2 tasks". The one place words for a
 * count are made, so the CLI, the Slack thread and the checks all say it the same way. `pluralNoun` for nouns whose
 * plural is not the noun plus "s" ("1 is", "2 are" as `plural(n, "task is", "tasks are")`).
 */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}
