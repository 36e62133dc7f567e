import { describe, expect, it } from "vitest";
import { AppError, ErrorCode } from "../../src/core/errors.js";
import { isValidImageReference, validateRestartRequest } from "../../src/restart/validate-restart-request.js";
import type { RestartRequest } from "../../src/restart/worker-restarter.js";

const valid: RestartRequest = {
  worker: {
    name: "w1",
    url: "http://10.0.0.5:8083",
    host: "10.0.0.5",
    workerId: "10.0.0.5:8083",
    pod: "connect-0",
  },
  kind: "upgrade",
  version: "3.7.1",
  image: "registry.example.com:5000/kafka/connect:3.7.1",
  stepId: "job-1:step-1",
};

function refusedField(req: RestartRequest): unknown {
  try {
    validateRestartRequest(req);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.RestartRefused);
    return (err as AppError).details.field;
  }
  return undefined;
}

describe("validateRestartRequest", () => {
  it("accepts a well-formed request", () => {
    expect(() => validateRestartRequest(valid)).not.toThrow();
    expect(() =>
      validateRestartRequest({ ...valid, image: null, worker: { ...valid.worker, pod: null } }),
    ).not.toThrow();
  });

  it.each(["3.7", "3.7.1", "3.7.1-rc1", "3.7.0.ccs", "10.20.30-SNAPSHOT"])(
    "accepts version %s",
    (version) => {
      expect(refusedField({ ...valid, version })).toBeUndefined();
    },
  );

  it.each([
    "3",
    "v3.7",
    "3.7.1-",
    "3.7.1-rc1-x",
    "3.7.1 ",
    "3.7;id",
    "3.7.1-a/b",
    "",
    "3.7.1-x".padEnd(50, "x"),
  ])("refuses version %j", (version) => {
    expect(refusedField({ ...valid, version })).toBe("version");
  });

  it.each([
    "connect:3.7.1",
    "confluentinc/cp-kafka-connect:7.6.0",
    "localhost:5000/connect:1",
    `ghcr.io/org/connect@sha256:${"a".repeat(64)}`,
    `ghcr.io/org/connect:3.7@sha256:${"0".repeat(64)}`,
  ])("accepts image %s", (image) => {
    expect(isValidImageReference(image)).toBe(true);
  });

  it.each([
    "connect",
    "Connect:1",
    "connect:1 ",
    "connect:1;id",
    "connect:$(id)",
    "connect:`id`",
    "connect:1|x",
    "registry/../x:1",
    "connect@sha256:abc",
    "-x/connect:1",
  ])("refuses image %j", (image) => {
    expect(refusedField({ ...valid, image })).toBe("image");
  });

  it("refuses unsafe worker names, hosts, pods, ids and step ids", () => {
    expect(refusedField({ ...valid, worker: { ...valid.worker, name: "w1 w2" } })).toBe("worker.name");
    expect(refusedField({ ...valid, worker: { ...valid.worker, host: "a;b" } })).toBe("worker.host");
    expect(refusedField({ ...valid, worker: { ...valid.worker, pod: "Connect_0" } })).toBe("worker.pod");
    expect(refusedField({ ...valid, worker: { ...valid.worker, workerId: "10.0.0.5" } })).toBe(
      "worker.workerId",
    );
    expect(refusedField({ ...valid, worker: { ...valid.worker, url: "file:///etc/passwd" } })).toBe(
      "worker.url",
    );
    expect(refusedField({ ...valid, stepId: "a b" })).toBe("stepId");
    expect(refusedField({ ...valid, stepId: "a\r\nX-Evil: 1" })).toBe("stepId");
  });

  it("accepts an IPv6 host", () => {
    const worker = {
      ...valid.worker,
      host: "[fd00::5]",
      workerId: "[fd00::5]:8083",
      url: "http://[fd00::5]:8083",
    };
    expect(refusedField({ ...valid, worker })).toBeUndefined();
  });
});
