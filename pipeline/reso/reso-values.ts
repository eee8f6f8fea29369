import type { ListingIssues } from '../issues.js';
import { pointerSegment } from '../json-document.js';

/** A RESO record: field name to value, keys beginning with `@` already removed. */
export type ResoRecord = Record<string, unknown>;

/**
 * An enumeration value in one spelling: the OData enum name (`ActiveUnderContract`) and the
 * human-friendly lookup (`Active Under Contract`, `Hotel/Motel`) meet as `activeundercontract`.
 */
export function enumKey(value: string): string {
  return value.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
}

/** Reads a record's fields, reporting unusable values as warnings at their JSON Pointer. */
export class ResoFields {
  constructor(
    readonly record: ResoRecord,
    /** JSON Pointer of the record in the document ('' for a single record). */
    readonly path: string,
    readonly issues: ListingIssues,
  ) {}

  pathOf(field: string): string {
    return `${this.path}/${pointerSegment(field)}`;
  }

  has(field: string): boolean {
    const v = this.record[field];
    return v !== undefined && v !== null && v !== '';
  }

  /** Text of a string or number field; null when absent, empty or of another type. */
  text(field: string): string | null {
    const v = this.record[field];
    if (v === undefined || v === null) return null;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v !== 'string') {
      this.issues.warning('invalid_field_type', `${field} should be text, not ${Array.isArray(v) ? 'an array' : typeof v}; ignored`, this.pathOf(field));
      return null;
    }
    return v.trim() || null;
  }

  /** A number, or a string holding one ("1250000.00"); null otherwise (with a warning when present). */
  number(field: string): number | null {
    const v = this.record[field];
    if (v === undefined || v === null || v === '') return null;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isFinite(n)) {
      this.issues.warning('invalid_number', `${field} ${JSON.stringify(v)} is not a number; ignored`, this.pathOf(field));
      return null;
    }
    return n;
  }

  /** A count ≥ 0 (whole numbers; a fraction is kept for bathrooms). */
  count(field: string): number | null {
    const n = this.number(field);
    if (n === null) return null;
    if (n < 0 || n > 100) {
      this.issues.warning('invalid_number', `${field} ${n} is not a plausible count; ignored`, this.pathOf(field));
      return null;
    }
    return n;
  }

  /** A RESO boolean (true/false, also "Y"/"N" and "true"/"false" from older servers). */
  flag(field: string): boolean | null {
    const v = this.record[field];
    if (v === undefined || v === null || v === '') return null;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && /^(y|yes|true|1)$/i.test(v.trim())) return true;
    if (typeof v === 'string' && /^(n|no|false|0)$/i.test(v.trim())) return false;
    this.issues.warning('invalid_boolean', `${field} ${JSON.stringify(v)} is not true or false; ignored`, this.pathOf(field));
    return null;
  }

  /** A multi-valued lookup: a JSON array or (older IsFlags servers) a comma-separated string. */
  values(field: string): string[] {
    const v = this.record[field];
    if (v === undefined || v === null) return [];
    if (Array.isArray(v))
      return v
        .filter((x): x is string => typeof x === 'string')
        .map((x) => x.trim())
        .filter(Boolean);
    if (typeof v === 'string')
      return v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
    this.issues.warning('invalid_field_type', `${field} should be a list of values; ignored`, this.pathOf(field));
    return [];
  }

  /** A Date field (YYYY-MM-DD; a timestamp's date part is taken); null, with a warning, for anything else. */
  date(field: string): string | null {
    const raw = this.text(field);
    if (raw === null) return null;
    const date = /^(\d{4}-\d{2}-\d{2})(T|$)/.exec(raw)?.[1];
    if (date && !Number.isNaN(Date.parse(date))) return date;
    this.issues.warning('invalid_date', `${field} "${raw}" is not a date (YYYY-MM-DD); ignored`, this.pathOf(field));
    return null;
  }

  /**
   * An expanded collection (Media, Rooms): its entries that are objects, each read as fields at its
   * own JSON Pointer, with its position. A value that is not an array, or an entry that is not an
   * object, is left out with a warning (entryCode for an entry).
   */
  collection(field: string, entryCode: string): { entry: ResoFields; index: number }[] {
    const raw = this.record[field];
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) {
      this.issues.warning('invalid_field_type', `${field} should be an array; ignored`, this.pathOf(field));
      return [];
    }
    return raw.flatMap((item, index) => {
      const path = `${this.pathOf(field)}/${index}`;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        this.issues.warning(entryCode, `a ${field} entry should be an object; skipped`, path);
        return [];
      }
      return [{ entry: new ResoFields(item as Record<string, unknown>, path, this.issues), index }];
    });
  }

  /** An enumeration field as its enumKey, or null. */
  enumeration(field: string): string | null {
    const t = this.text(field);
    return t === null ? null : enumKey(t);
  }
}
