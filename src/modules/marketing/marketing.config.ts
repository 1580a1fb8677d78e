import { isHttpUrl, type EnvReader } from '../../infra/env.js';

/** The `conversions` section of the configuration: a Conversions-API-compatible endpoint. */
export interface ConversionsConfig {
  url: string | undefined;
  pixelId: string | undefined;
  accessToken: string | undefined;
}

export function readConversionsConfig(env: EnvReader): ConversionsConfig {
  const config: ConversionsConfig = {
    url: env.optional('CONVERSIONS_API_URL'),
    pixelId: env.optional('CONVERSIONS_PIXEL_ID'),
    accessToken: env.optional('CONVERSIONS_ACCESS_TOKEN'),
  };
  if (config.url !== undefined && !isHttpUrl(config.url)) env.problem(`CONVERSIONS_API_URL must be an http(s) URL, got "${config.url}"`);
  // Some set and not all is a setting mistyped or left out, not the choice of no endpoint: every event
  // would be ended as skipped, for good.
  const settings = { CONVERSIONS_API_URL: config.url, CONVERSIONS_PIXEL_ID: config.pixelId, CONVERSIONS_ACCESS_TOKEN: config.accessToken };
  const missing = Object.entries(settings).filter(([, value]) => value === undefined);
  if (missing.length > 0 && missing.length < 3) {
    const set = Object.keys(settings).filter((name) => !missing.some(([other]) => other === name));
    env.problem(
      `${missing.map(([name]) => name).join(' and ')} ${missing.length === 1 ? 'is' : 'are'} required with ${set.join(' and ')} (the Conversions API takes all three; none: its events are skipped)`,
    );
  }
  return config;
}
