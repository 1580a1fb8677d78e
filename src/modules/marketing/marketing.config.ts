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
  return config;
}
