import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Compiles the CLI once and, on PostgreSQL, migrates one template database (test/setup/).
    globalSetup: ['test/setup/global-setup.ts'],
    // Each file builds its own app on a fresh database; PostgreSQL files each copy the template.
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
