import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createRootLogger } from "../../src/cli/create-logger.js";
import { waitFor } from "../support/wait-for.js";

describe("root logger", () => {
  it("redacts tokens, secrets, passwords and auth headers wherever they appear", async () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (c: Buffer) => {
      text += c.toString();
    });
    const logger = createRootLogger({ level: "info", pretty: false, destination: out });
    logger.info(
      {
        token: "xoxb-secret-1",
        auth: { password: "hunter2", headers: { authorization: "Bearer abc" } },
        slack: { signingSecret: "s3cr3t", botToken: "xoxb-secret-2" },
        env: { SLACK_APP_TOKEN: "xapp-secret-3" },
        cluster: "prod",
      },
      "configured",
    );
    logger.flush();
    await waitFor("the log line", () => text.includes('"cluster":"prod"'));
    for (const secret of [
      "xoxb-secret-1",
      "hunter2",
      "Bearer abc",
      "s3cr3t",
      "xoxb-secret-2",
      "xapp-secret-3",
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain("[redacted]");
  });
});
