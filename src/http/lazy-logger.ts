import type { FastifyBaseLogger } from 'fastify';

type ChildArgs = Parameters<FastifyBaseLogger['child']>;
type LogFn = (...args: unknown[]) => void;

/**
 * Fastify makes a child logger (with the request id) for every request, even when the request
 * logs nothing; that is a noticeable share of a fast request. This child is made on the first
 * line that is actually written, and every line still carries the request id. A class, so that
 * nothing but one small object is made per request.
 */
class LazyChildLogger {
  private instance: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: ChildArgs[0],
    private readonly options: ChildArgs[1],
  ) {}

  private real(): FastifyBaseLogger {
    return (this.instance ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.real()[level] as LogFn)(...args);
  }

  /** Whether a line of this level would be written (pino's method; true where the parent cannot say). */
  isLevelEnabled(level: string): boolean {
    const owner = this.instance ?? this.parent;
    return (owner as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.(level) !== false;
  }

  get level(): string {
    return this.instance?.level ?? this.parent.level;
  }
  set level(value: string) {
    this.real().level = value;
  }
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}
  child(...args: ChildArgs): FastifyBaseLogger {
    return this.real().child(...args);
  }
}

/**
 * Fastify's childLoggerFactory for a Fastify made without a logger of its own (app.ts): the parent
 * it passes is its do-nothing logger, so every request's child is one of `root`'s.
 */
export function lazyChildLoggerFactory(root: FastifyBaseLogger) {
  return (_fastifys: FastifyBaseLogger, bindings: ChildArgs[0], options?: ChildArgs[1]): FastifyBaseLogger =>
    new LazyChildLogger(root, bindings, options) as unknown as FastifyBaseLogger;
}
