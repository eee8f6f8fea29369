/**
 * An office id (REAXML agentID, RESO ListOfficeKey, the offices a feed key covers): 1 to 200
 * letters or digits (any script), '.', '_', ':' or '-', starting with a letter or digit. No
 * spaces, slashes or markup: an office id is part of listing keys ("OFF1/L1") and of URLs.
 * Checked wherever an office id enters the service (feed keys, a feed's officeId, office settings).
 */
export const OFFICE_ID_PATTERN = '^[\\p{L}\\p{N}][\\p{L}\\p{N}._:-]{0,199}$';
const OFFICE_ID = new RegExp(OFFICE_ID_PATTERN, 'u');

export const OFFICE_ID_RULE = "1 to 200 letters, digits, '.', '_', ':' or '-', starting with a letter or digit";

/** Why a value is not an office id, or null when it is one. */
export function officeIdProblem(id: string): string | null {
  return OFFICE_ID.test(id) ? null : `${JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id)} is not an office id (${OFFICE_ID_RULE})`;
}
