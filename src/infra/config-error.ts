/**
 * Settings the process cannot run with, each problem on a line of its own: the CLI prints the message
 * alone and exits 1. Thrown by loadConfig for bad values, and below it where a value is found wrong
 * only once it is used (a SQLite DATABASE_URL naming a folder: db/sqlite-file.ts).
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}
