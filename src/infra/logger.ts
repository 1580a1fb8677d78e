type LogFn = {
  (obj: object, msg?: string): void;
  (msg: string): void;
};

/**
 * What the lower layers (jobs, mail) log through. pino's loggers, and so Fastify's, have it; these
 * layers need no more and so stay free of HTTP.
 */
export interface Logger {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}
