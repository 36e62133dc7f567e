/**
 * A count with its noun, in the number the count takes: "0 tasks", "1 task", "2 tasks", "1,240 tasks". The one place
 * words for a count are made, so the CLI, the Slack thread and the checks all say it the same way. `pluralNoun` for
 * words whose plural is not the noun plus "s": `plural(n, "task is", "tasks are")`.
 */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? noun : pluralNoun}`;
}
