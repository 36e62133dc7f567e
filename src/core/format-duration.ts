/**
 * A duration for people: "45s", "2m10s", "5m02s", "1h05m", "3d04h". Rounded to the nearest second; negative values
 * read as 0s. The one style every duration the CLI and the Slack thread show is written in.
 */
export function formatDuration(ms: number): string {
  const totalSeconds = Number.isFinite(ms) ? Math.max(0, Math.round(ms / 1000)) : 0;
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (days > 0) return `${days}d${pad2(hours)}h`;
  if (hours > 0) return `${hours}h${pad2(minutes)}m`;
  if (minutes > 0) return `${minutes}m${pad2(seconds)}s`;
  return `${seconds}s`;
}

/**
 * The same style with tenths of a second below 10 s ("0.4s", "2.5s", "3s"), for the short timings whose sum or
 * difference the reader is meant to check (a plan note's window margin, a restart command's run time); from 10 s on,
 * `formatDuration`.
 */
export function formatShortDuration(ms: number): string {
  const tenths = Number.isFinite(ms) ? Math.max(0, Math.round(ms / 100)) : 0;
  if (tenths >= 100) return formatDuration(ms);
  return tenths % 10 === 0 ? `${tenths / 10}s` : `${(tenths / 10).toFixed(1)}s`;
}

function pad2(n: number): string {
  return n.toString().padStart(2, "0");
}
