/** A name (a savepoint's) inside double quotes in SQL: doubled quotes, as both engines expect. */
export function quoteName(name: string): string {
  return name.replace(/"/g, '""');
}
