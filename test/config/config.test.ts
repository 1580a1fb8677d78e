import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('has working defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/storefront.db',
      sqliteReadWorkers: 2,
      databasePreparedStatements: true,
      httpTurnBudgetMs: 2,
      basePath: '',
      dataExportPath: '/export',
      corsOrigins: [],
      defaultStore: 'WEB',
      defaultLanguage: 'et',
      logLevel: 'info',
      storeCacheTtlMs: 1000,
      catalogueCacheTtlMs: 30_000,
      catalogueListCacheTtlMs: 60_000,
      catalogueListPriceSqlFromOffset: 200,
      trustProxy: false,
      apiDocs: 'public',
      mail: { smtpUrl: undefined, dir: './data/mail', backofficeEmails: [] },
      jobs: { worker: 'inline', pollIntervalMs: 1000, maxAttempts: 8 },
      accounts: {
        accessTokenTtlMs: 30 * 86_400_000,
        verificationTokenTtlMs: 7 * 86_400_000,
        resetTokenTtlMs: 3_600_000,
        verifyEmailPath: '/verify-email',
        setNewPasswordPath: '/set-new-password',
        businessApprovalStores: [],
      },
      rateLimits: {
        authPerIp: { max: 30, windowMs: 60_000 },
        authPerEmail: { max: 10, windowMs: 900_000 },
        loginFailuresPerAddress: { max: 5, windowMs: 900_000 },
        loginFailuresPerEmail: { max: 20, windowMs: 900_000 },
      },
    });
  });

  it('reads durations and rates in their short forms', () => {
    const config = loadConfig({ ACCESS_TOKEN_TTL: '3600', RESET_TOKEN_TTL: '15m', AUTH_RATE_LIMIT_PER_IP: '5/10s' });
    expect(config.accounts.accessTokenTtlMs).toBe(3_600_000);
    expect(config.accounts.resetTokenTtlMs).toBe(900_000);
    expect(config.rateLimits.authPerIp).toEqual({ max: 5, windowMs: 10_000 });
    const accounts = loadConfig({
      BUSINESS_APPROVAL_STORES: 'WEB, WEB2',
      LOGIN_FAILURES_PER_ADDRESS: '3/5m',
      LOGIN_FAILURES_PER_EMAIL: '50/1h',
    });
    expect(accounts.accounts.businessApprovalStores).toEqual(['WEB', 'WEB2']);
    expect(accounts.rateLimits.loginFailuresPerAddress).toEqual({ max: 3, windowMs: 300_000 });
    expect(accounts.rateLimits.loginFailuresPerEmail).toEqual({ max: 50, windowMs: 3_600_000 });
    expect(loadConfig({}).linkGuessesPerIp).toEqual({ max: 100, windowMs: 3_600_000 });
    expect(loadConfig({ LINK_GUESS_RATE_LIMIT_PER_IP: '20/10m' }).linkGuessesPerIp).toEqual({ max: 20, windowMs: 600_000 });
    // The wrong-code limits: 10 in 10 minutes unless set.
    expect(loadConfig({}).basket.wrongCodesPerIp).toEqual({ max: 10, windowMs: 600_000 });
    expect(loadConfig({}).giftCards.wrongCodesPerIp).toEqual({ max: 10, windowMs: 600_000 });
    expect(loadConfig({ DISCOUNT_CODE_GUESS_RATE_LIMIT_PER_IP: '3/1h' }).basket.wrongCodesPerIp).toEqual({ max: 3, windowMs: 3_600_000 });
    expect(loadConfig({ GIFT_CARD_GUESS_RATE_LIMIT_PER_IP: '2/1m' }).giftCards.wrongCodesPerIp).toEqual({ max: 2, windowMs: 60_000 });
    for (const bad of [
      { ACCESS_TOKEN_TTL: '30 days' },
      { RESET_TOKEN_TTL: '0' },
      { AUTH_RATE_LIMIT_PER_IP: 'lots' },
      { AUTH_RATE_LIMIT_PER_EMAIL: '0/1m' },
      { WORKER: 'sometimes' },
      { CONVERSIONS_API_URL: 'ftp://x' },
      { BACKOFFICE_EMAILS: 'office' },
      { BUSINESS_APPROVAL_STORES: 'WEB,SHOP' },
      { LOGIN_FAILURES_PER_ADDRESS: 'many' },
      { LOGIN_FAILURES_PER_EMAIL: '0/1m' },
      { SQLITE_READ_WORKERS: '17' },
      { SQLITE_READ_WORKERS: 'two' },
      { DATABASE_PREPARED_STATEMENTS: 'no' },
      { DISCOUNT_CODE_GUESS_RATE_LIMIT_PER_IP: 'ten' },
      { GIFT_CARD_GUESS_RATE_LIMIT_PER_IP: '0/10m' },
    ]) {
      expect(() => loadConfig(bad), JSON.stringify(bad)).toThrow(ConfigError);
    }
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db:5432/shop',
      BASE_PATH: '/api/v1',
      DATA_EXPORT_PATH: '/data',
      CORS_ORIGINS: 'https://a.example, https://b.example:8443',
      DEFAULT_STORE: 'WEB2',
      DEFAULT_LANGUAGE: 'ru',
      LOG_LEVEL: 'warn',
      SQLITE_READ_WORKERS: '0',
      DATABASE_PREPARED_STATEMENTS: 'off',
      HTTP_TURN_BUDGET_MS: '0',
    });
    expect(config).toMatchObject({
      port: 8080,
      sqliteReadWorkers: 0,
      databasePreparedStatements: false,
      httpTurnBudgetMs: 0,
      basePath: '/api/v1',
      dataExportPath: '/data',
      corsOrigins: ['https://a.example', 'https://b.example:8443'],
      defaultStore: 'WEB2',
      defaultLanguage: 'ru',
      logLevel: 'warn',
    });
  });

  it('reports every bad value at once, by name', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        BASE_PATH: 'api/',
        CORS_ORIGINS: 'shop.example',
        DEFAULT_STORE: 'SHOP',
        DEFAULT_LANGUAGE: 'de',
        LOG_LEVEL: 'loud',
        STORE_CACHE_TTL_MS: '-1',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'BASE_PATH',
      'CORS_ORIGINS',
      'DEFAULT_STORE',
      'DEFAULT_LANGUAGE',
      'LOG_LEVEL',
      'STORE_CACHE_TTL_MS',
    ]) {
      expect(problems).toContain(name);
    }
  });

  it('reads TRUST_PROXY as false, a hop count, or proxy addresses and blocks', () => {
    const trust = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;
    expect(trust('false')).toBe(false);
    expect(trust('0')).toBe(false);
    expect(trust('')).toBe(false);
    expect(trust('1')).toBe(1);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.0/8')).toEqual(['10.0.0.0/8']);
    expect(trust(' 10.0.0.1 , 172.16.0.0/12,FD00::/8, ::1, loopback ')).toEqual([
      '10.0.0.1',
      '172.16.0.0/12',
      'fd00::/8',
      '::1',
      'loopback',
    ]);
  });

  it('refuses a TRUST_PROXY that trusts every hop or is not an address, saying what to set', () => {
    for (const bad of ['true', 'TRUE', 'yes', '*', '21', '10.0.0.0/33', '::1/129', 'proxy.internal', '10.0.0.0/8/8', '10.0.0.256', '-1']) {
      let error: unknown;
      try {
        loadConfig({ TRUST_PROXY: bad });
      } catch (err) {
        error = err;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n'), bad).toMatch(/^TRUST_PROXY.*TRUST_PROXY=1/);
    }
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/trust every hop/);
  });

  it('reads API_DOCS as public, operator or off', () => {
    expect(loadConfig({ API_DOCS: 'operator' }).apiDocs).toBe('operator');
    expect(loadConfig({ API_DOCS: 'off' }).apiDocs).toBe('off');
    expect(() => loadConfig({ API_DOCS: 'private' })).toThrow(/API_DOCS must be one of public, operator, off/);
  });

  it('turns EveryPay on with all three credentials, off with none, and names the missing ones of a partial set', () => {
    expect(loadConfig({}).everypay).toBeUndefined();
    const credentials = { EVERYPAY_API_USERNAME: 'user', EVERYPAY_API_SECRET: 'secret', EVERYPAY_ACCOUNT_NAME: 'EUR3D1' };
    expect(loadConfig(credentials).everypay).toEqual({
      apiUrl: 'https://pay.every-pay.eu',
      apiUsername: 'user',
      apiSecret: 'secret',
      accountName: 'EUR3D1',
      timeoutMs: 10_000,
    });
    expect(
      loadConfig({ ...credentials, EVERYPAY_API_URL: 'https://igw-demo.every-pay.com/', EVERYPAY_TIMEOUT_MS: '2500' }).everypay,
    ).toMatchObject({ apiUrl: 'https://igw-demo.every-pay.com', timeoutMs: 2500 });
    expect(() => loadConfig({ EVERYPAY_API_USERNAME: 'user' })).toThrow(/missing: EVERYPAY_API_SECRET, EVERYPAY_ACCOUNT_NAME/);
    expect(() => loadConfig({ ...credentials, EVERYPAY_ACCOUNT_NAME: ' ' })).toThrow(/missing: EVERYPAY_ACCOUNT_NAME$/m);
    expect(() => loadConfig({ ...credentials, EVERYPAY_API_URL: 'pay.every-pay.eu' })).toThrow(/EVERYPAY_API_URL/);
    expect(() => loadConfig({ ...credentials, EVERYPAY_TIMEOUT_MS: '10s' })).toThrow(/EVERYPAY_TIMEOUT_MS/);
  });

  it('never shows the EveryPay secret in a configuration error', () => {
    expect(() => loadConfig({ EVERYPAY_API_SECRET: 'hunter2-secret' })).toThrow(ConfigError);
    try {
      loadConfig({ EVERYPAY_API_SECRET: 'hunter2-secret' });
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2-secret');
    }
  });

  it('refuses an export path that collides with the main API', () => {
    expect(() => loadConfig({ BASE_PATH: '/api', DATA_EXPORT_PATH: '/api' })).toThrow(ConfigError);
  });
});
