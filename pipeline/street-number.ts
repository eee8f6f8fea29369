/**
 * A composite street number split into its parts where the reading is unambiguous: "23/541" and
 * "Unit D, 21" (sub-number and number), "Lot 5 / 12" (lot and number), "Lot 4A" (a lot alone).
 * Anything else ("7 & 9", "12-14", "Shop 3 Level 2") is left whole (undefined).
 */
export interface StreetNumberParts {
  subNumber?: string;
  streetNumber: string | null;
  lotNumber?: string;
}

const NUMBER = String.raw`(\d+[A-Za-z]?(?:-\d+[A-Za-z]?)?)`;
const PART = '([A-Za-z0-9]{1,6})';
const UNIT_WORD = String.raw`(?:unit|units|apartment|apt|flat|suite|shop|villa|townhouse|u)\.?`;

const LOT_AND_NUMBER = new RegExp(String.raw`^lot\s*${PART}\s*[/,]\s*${NUMBER}$`, 'i');
const LOT_ALONE = new RegExp(String.raw`^lot\s*${PART}$`, 'i');
const SUB_AND_NUMBER = new RegExp(String.raw`^(?:${UNIT_WORD}\s*)?${PART}\s*[/,]\s*${NUMBER}$`, 'i');

/**
 * The longest street number text split (docs/security.md, Text the parsers read): the forms split
 * are a few characters ("Unit 12A / 1234-1236B" is 21); longer text is left whole unread.
 */
export const STREET_NUMBER_MAX_CHARS = 64;

export function splitStreetNumber(raw: string): StreetNumberParts | undefined {
  if (raw.length > STREET_NUMBER_MAX_CHARS && raw.trim().length > STREET_NUMBER_MAX_CHARS) return undefined;
  const text = raw.trim().replace(/\s+/g, ' ');
  let m = LOT_AND_NUMBER.exec(text);
  if (m) return { lotNumber: m[1], streetNumber: m[2] };
  m = LOT_ALONE.exec(text);
  if (m) return { lotNumber: m[1], streetNumber: null };
  m = SUB_AND_NUMBER.exec(text);
  if (m) return { subNumber: m[1], streetNumber: m[2] };
  return undefined;
}
