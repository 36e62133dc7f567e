/**
 * "Did you mean …?" for a misspelt name: the cluster names of `/connect-roll` and the CLI, and the keys of the
 * configuration file (schema-keys.ts), by case-insensitive edit distance.
 */

/**
 * The known cluster names closest to `name` (Levenshtein distance, then alphabetical), at most `limit` (3),
 * for "unknown cluster 'prod-clustr', did you mean prod-cluster?". Names too far away are left out.
 */
export function suggestClusters(name: string, known: readonly string[], limit = 3): string[] {
  const target = name.toLowerCase();
  const cutoff = Math.max(2, Math.ceil(target.length / 2));
  return known
    .map((candidate) => {
      const lowered = candidate.toLowerCase();
      const distance = editDistance(target, lowered);
      const related = target.length >= 3 && (lowered.includes(target) || target.includes(lowered));
      return { candidate, distance, eligible: distance <= cutoff || related };
    })
    .filter((entry) => entry.eligible && entry.distance > 0)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((entry) => entry.candidate);
}

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(
        Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
