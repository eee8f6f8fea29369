import { badRequest } from '../lib/errors.js';
import { officeIdProblem } from '../lib/office-id.js';

/** The office ids of a request body, trimmed; a 400 naming the first that is not an office id. */
export function officeIdsOf(raw: string[], field: string): string[] {
  return raw.map((value, i) => {
    const id = value.trim();
    const problem = officeIdProblem(id);
    if (problem) throw badRequest(`${field}[${i}]: ${problem}`);
    return id;
  });
}

/** An office id in a path (/v1/admin/offices/{office}); a 400 when it is not one. */
export function officeParam(raw: unknown): string {
  const office = String(raw);
  const problem = officeIdProblem(office);
  if (problem) throw badRequest(`the path's office: ${problem}`);
  return office;
}
