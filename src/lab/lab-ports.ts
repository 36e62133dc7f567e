import { createServer as createNetServer } from "node:net";
import { AppError, ErrorCode } from "../core/errors.js";

/** Every lab JVM listens on loopback. */
export const HOST = "127.0.0.1";

/**
 * Ports the lab's JVMs listen on are taken below Linux's ephemeral range (32768–60999 by default): a port the kernel
 * handed out for listening is in that range, and while a worker is down for a restart any outgoing connection (the
 * JVMs open hundreds) may take it as its source port, so the worker cannot bind it again ("Address already in use").
 */
const PORT_RANGE = { from: 20_000, to: 32_000 } as const;
const handedOut = new Set<number>();

async function canListen(port: number): Promise<boolean> {
  const server = createNetServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, HOST, () => resolve(true));
  });
  if (ok) await new Promise<void>((resolve) => server.close(() => resolve()));
  return ok;
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new AppError(ErrorCode.Internal, `no free port on ${HOST} in ${PORT_RANGE.from}–${PORT_RANGE.to}`);
}
