import type { ErrorObject } from 'ajv';

// A union (TypeBox's Type.Union, Ajv's anyOf) that no branch accepts makes Ajv report the errors of
// every branch and then the union's own. The field took its message from the first branch alone: a
// bad gender said "allowed values: MALE", a fractional category id (a code or an id) "must be of type
// string". Here each failed union's errors become the ones that describe what the union accepts:
//
// - every branch a list of values (literals, and null): one list of all of them;
// - else the branches whose type the value has (a string for a nullable string, a fraction for an
//   integer): the errors of the closest of them, which say what is wrong with the value;
// - else none fits: the types the union takes.
//
// The errors need Ajv's `verbose` (the value and the schema of each error).

/** The errors, each failed union's own and its branches' replaced by the errors that describe the union. */
export function summariseUnions(errors: ErrorObject[]): ErrorObject[] {
  let result = errors;
  // Ajv reports a union after its branches: a union inside a branch is summarised before its parent.
  for (const union of errors) if (union.keyword === 'anyOf' || union.keyword === 'oneOf') result = summariseUnion(result, union);
  return result;
}

function summariseUnion(errors: ErrorObject[], union: ErrorObject): ErrorObject[] {
  const prefix = `${union.schemaPath}/`;
  // An array's items share one schema path: the errors of this item only.
  const ofUnion = (error: ErrorObject) =>
    error.schemaPath.startsWith(prefix) &&
    (error.instancePath === union.instancePath || error.instancePath.startsWith(`${union.instancePath}/`));
  const branches = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    if (!ofUnion(error)) continue;
    const branch = error.schemaPath.slice(prefix.length).split('/', 1)[0]!;
    branches.set(branch, [...(branches.get(branch) ?? []), error]);
  }
  // A oneOf that more than one branch accepted has no branch errors: nothing to summarise.
  if (branches.size === 0) return errors;
  const summary = describe(union, [...branches.values()]);
  return errors.flatMap((error) => (error === union ? summary : ofUnion(error) ? [] : [error]));
}

function describe(union: ErrorObject, branches: ErrorObject[][]): ErrorObject[] {
  const lists = branches.map((branch) => allowedValues(branch, union.instancePath));
  if (lists.every((list) => list !== undefined)) {
    return [{ ...union, keyword: 'enum', params: { allowedValues: [...new Set(lists.flat())] } }];
  }
  const wrongType = (branch: ErrorObject[], type?: string) =>
    branch.some((error) => isTypeErrorAt(error, union.instancePath) && (type === undefined || error.params.type === type));
  let closest = branches.filter((branch) => !wrongType(branch));
  // A number with a fraction where a branch takes an integer: that branch says what is wrong with it.
  if (closest.length === 0 && typeof union.data === 'number') closest = branches.filter((branch) => wrongType(branch, 'integer'));
  if (closest.length > 0) return closest.reduce((best, branch) => (branch.length < best.length ? branch : best));
  const types = branches.flatMap((branch) =>
    branch.filter((error) => isTypeErrorAt(error, union.instancePath)).flatMap((error) => String(error.params.type).split(',')),
  );
  return [{ ...union, keyword: 'type', params: { type: [...new Set(types)].join(',') } }];
}

const isTypeErrorAt = (error: ErrorObject, instancePath: string) => error.keyword === 'type' && error.instancePath === instancePath;

/** The values a branch allows when it is a list of them (literals, an enum, or null), else undefined. */
function allowedValues(branch: ErrorObject[], instancePath: string): unknown[] | undefined {
  const ofValue = branch.every((error) => error.instancePath === instancePath && ['const', 'enum', 'type'].includes(error.keyword));
  if (!ofValue) return undefined;
  const values = branch.flatMap((error) =>
    error.keyword === 'const' ? [error.params.allowedValue] : error.keyword === 'enum' ? (error.params.allowedValues as unknown[]) : [],
  );
  if (values.length > 0) return values;
  return branch.every((error) => error.params.type === 'null') ? [null] : undefined;
}
