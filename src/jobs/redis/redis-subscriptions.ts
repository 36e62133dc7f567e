import type { Cluster, Redis } from "ioredis";

/** Fan-out of pub/sub messages from one subscriber connection to any number of listeners. */
export interface RedisSubscriptions {
  /** Subscribes to `channel` (once per channel) and calls `onMessage` for each message until unlistened. */
  listen(channel: string, onMessage: (message: string) => void): Promise<() => void>;
  /** Unsubscribes everything; with `disconnect`, also closes the connection. */
  close(disconnect: boolean): Promise<void>;
}

/** `subscriber` must be a connection used for nothing else: in subscriber mode it can run no commands. */
export function createRedisSubscriptions(subscriber: Redis | Cluster): RedisSubscriptions {
  const listeners = new Map<string, Set<(message: string) => void>>();
  subscriber.on("message", (channel: string, message: string) => {
    for (const listener of listeners.get(channel) ?? []) listener(message);
  });
  return {
    async listen(channel, onMessage) {
      let set = listeners.get(channel);
      if (set === undefined) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(onMessage);
      if (set.size === 1) {
        try {
          await subscriber.subscribe(channel);
        } catch (error) {
          set.delete(onMessage);
          if (listeners.get(channel)?.size === 0) listeners.delete(channel);
          throw error;
        }
      }
      const current = set;
      return () => {
        current.delete(onMessage);
        if (current.size === 0 && listeners.get(channel) === current) {
          listeners.delete(channel);
          subscriber.unsubscribe(channel).catch(() => {
            // Best effort: a stale subscription only delivers messages nobody listens to.
          });
        }
      };
    },
    async close(disconnect) {
      listeners.clear();
      if (disconnect) subscriber.disconnect();
    },
  };
}
