import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhookSignature } from "../../../src/restart/webhook/webhook-signature.js";

/** A loopback webhook receiver that verifies every request's signature (401 when it does not verify). */
export interface WebhookReceiver {
  readonly url: string;
  readonly accepted: { headers: IncomingHttpHeaders; body: string; payload: { worker: { name: string } } }[];
  readonly rejected: string[];
  /** The status later requests get (after verification); default 202. */
  respondWith(status: number, body?: string): void;
  /** Later requests are accepted but never answered. */
  hang(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const accepted: WebhookReceiver["accepted"] = [];
  const rejected: string[] = [];
  let status = 202;
  let answer = '{"accepted":true}';
  let hanging = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (hanging) return;
      const body = Buffer.concat(chunks).toString("utf8");
      const ts = String(req.headers["x-connect-roll-timestamp"] ?? "");
      const sig = req.headers["x-connect-roll-signature"];
      const verdict = verifyWebhookSignature(
        secret,
        ts,
        body,
        typeof sig === "string" ? sig : undefined,
        Date.now() / 1000,
        300,
      );
      if (!verdict.ok) {
        rejected.push(verdict.reason);
        res.writeHead(401);
        res.end(`bad signature: ${verdict.reason}`);
        return;
      }
      if (status >= 200 && status < 300) {
        accepted.push({
          headers: req.headers,
          body,
          payload: JSON.parse(body) as { worker: { name: string } },
        });
      }
      res.writeHead(status, { "content-type": "application/json" });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/connect-roll?token=path-secret`,
    accepted,
    rejected,
    respondWith(next, body = "") {
      status = next;
      answer = body;
    },
    hang() {
      hanging = true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
