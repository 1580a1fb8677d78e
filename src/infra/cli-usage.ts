/** A command line the CLI cannot run: it prints the message and the usage, and exits with 2. */
export class CliUsageError extends Error {}
