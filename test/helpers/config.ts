import { ConfigError, loadConfig } from '../../src/config.js';

/** The problems loadConfig names for these settings (none when they are all good). */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
