/** True for PostgreSQL's and SQLite's unique-constraint (and primary-key) violations. */
export function isUniqueViolation(error: unknown): boolean {
  const err = error as { code?: string; message?: string } | undefined;
  const code = err?.code ?? '';
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  return /UNIQUE constraint failed/.test(err?.message ?? '');
}
