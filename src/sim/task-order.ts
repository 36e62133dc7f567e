/** Orders "connector/N" keys by connector name, then numerically by task index. */
function compareTaskKeys(a: string, b: string): number {
  const ia = a.lastIndexOf("/");
  const ib = b.lastIndexOf("/");
  const ca = a.slice(0, ia);
  const cb = b.slice(0, ib);
  if (ca !== cb) return ca < cb ? -1 : 1;
  return Number(a.slice(ia + 1)) - Number(b.slice(ib + 1));
}

export function sortTaskKeys(keys: Iterable<string>): string[] {
  return [...keys].sort(compareTaskKeys);
}

export function sortNames(names: Iterable<string>): string[] {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
