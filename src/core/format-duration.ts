/**
 * A duration for people: "45s", "2m10s", "5m02s", "1h05m". Rounded to the nearest second; negative values read as 0s.
 */
export function formatDuration(ms: number): string {
  const totalSeconds = Number.isFinite(ms) ? Math.max(0, Math.round(ms / 1000)) : 0;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${pad2(minutes)}m`;
  if (minutes > 0) return `${minutes}m${pad2(seconds)}s`;
  return `${seconds}s`;
}

function pad2(n: number): string {
  return n.toString().padStart(2, "0");
}
