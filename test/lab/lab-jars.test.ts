import { describe, expect, it } from "vitest";
import { unresolvedMessage } from "../../src/lab/lab-jars.js";

describe("a version Maven cannot resolve", () => {
  const served = [
    "2.2.2",
    "2.8.1",
    "2.8.2",
    "3.5.2",
    "3.8.0",
    "3.8.1",
    "3.9.2",
    "4.0.0",
    "4.4.0",
    "4.5.0",
    "0.10.2.2",
  ];

  it("is one line naming its line's versions and the newest of each line the lab runs", () => {
    expect(unresolvedMessage("org.apache.kafka", "kafka_2.13", "3.8.2", served)).toBe(
      "Maven cannot resolve Kafka 3.8.2 (org.apache.kafka:kafka_2.13:3.8.2); it resolves 3.8: 3.8.0, 3.8.1 (newest of each line: 2.8.2, 3.8.1, 3.9.2, 4.0.0, 4.4.0)",
    );
  });

  it("says when its line has no version at all", () => {
    expect(unresolvedMessage("org.apache.kafka", "connect-runtime", "4.3.9", served)).toMatch(
      /; it resolves no 4\.3\.x \(newest of each line: /,
    );
  });

  it("without the repository's list, asks to check the version", () => {
    expect(unresolvedMessage("org.apache.kafka", "kafka_2.13", "4.4.1", [])).toBe(
      "Maven cannot resolve Kafka 4.4.1 (org.apache.kafka:kafka_2.13:4.4.1); check the version (the lab supports 2.2.x – 4.4.x)",
    );
  });
});
