/** A config file with one cluster `prod` of one worker and the sim executor; `extra` is the rest of its section. */
export const oneWorkerCluster = (extra: string) => `
clusters:
  prod:
    workers:
      - name: w1
        url: http://10.0.0.1:8083
    executor:
      kind: sim
      controlUrl: http://127.0.0.1:7070
${extra}`;
