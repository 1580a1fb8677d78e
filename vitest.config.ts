import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file builds its own app on a fresh database; PostgreSQL files each create a database.
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
