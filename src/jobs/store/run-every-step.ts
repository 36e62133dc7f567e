/**
 * Runs every cleanup step even when some fail, then rethrows: the only failure as is, several as an
 * AggregateError. Used by `close()` so one broken resource never leaks the others.
 */
export async function runEveryStep(steps: ReadonlyArray<() => unknown>): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, "several cleanup steps failed");
}
