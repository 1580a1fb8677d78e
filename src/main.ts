#!/usr/bin/env node
// The binary, `storefront <command>`: the command line (src/cli.ts) on this process's arguments,
// environment and streams. Tests run the same runCli in their own process (test/helpers/cli.ts).
import { runCli } from './cli.js';

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  progress: process.stderr.isTTY ? process.stderr : undefined,
  stdin: process.stdin,
});
// serve and worker (-1) keep running until a signal; the others end when their handles close.
if (code >= 0) process.exitCode = code;
