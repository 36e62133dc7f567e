import { describe, expect, it } from "vitest";
import { AppError } from "../../../src/core/errors.js";
import {
  inClusterKubernetesOptions,
  SERVICE_ACCOUNT_DIR,
} from "../../../src/restart/kubernetes/kubernetes-options.js";

const files: Record<string, string> = {
  [`${SERVICE_ACCOUNT_DIR}/token`]: "tok",
  [`${SERVICE_ACCOUNT_DIR}/ca.crt`]: "PEM",
  [`${SERVICE_ACCOUNT_DIR}/namespace`]: "kafka\n",
};
const fs = {
  existsSync: (path: string) => path in files,
  readFileSync: (path: string) => files[path] ?? "",
};

describe("inClusterKubernetesOptions", () => {
  it("builds the API URL and credential paths from the service account", () => {
    expect(
      inClusterKubernetesOptions({ KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" }, fs),
    ).toEqual({
      apiUrl: "https://10.0.0.1:443",
      tokenFile: `${SERVICE_ACCOUNT_DIR}/token`,
      caFile: `${SERVICE_ACCOUNT_DIR}/ca.crt`,
      namespace: "kafka",
    });
  });
  it("brackets an IPv6 service host", () => {
    const opts = inClusterKubernetesOptions(
      { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" },
      fs,
    );
    expect(opts.apiUrl).toBe("https://[fd00::1]:443");
  });
  it("fails outside a cluster", () => {
    expect(() => inClusterKubernetesOptions({}, fs)).toThrow(AppError);
    const empty = { existsSync: () => false, readFileSync: () => "" };
    expect(() =>
      inClusterKubernetesOptions(
        { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" },
        empty,
      ),
    ).toThrow(/credentials missing/);
  });
});
