/**
 * Whether the process has been asked to stop. Between SIGTERM and closing, an API process keeps
 * answering (SHUTDOWN_DRAIN_MS) while its readiness check says it is stopping, so a load balancer
 * takes it out of the pool before it stops listening; a request cut by the closing would be lost,
 * and a proxy does not retry a cut POST on another process.
 */
export interface Lifecycle {
  readonly stopping: boolean;
  stop(): void;
}

export function createLifecycle(): Lifecycle {
  let stopping = false;
  return {
    get stopping() {
      return stopping;
    },
    stop() {
      stopping = true;
    },
  };
}
