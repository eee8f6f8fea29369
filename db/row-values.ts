/** Conversions shared by the data-access modules when they turn rows into API objects. */

/** A timestamp column as ISO-8601 UTC. */
export const iso = (value: Date | string): string => new Date(value).toISOString();

/** A nullable timestamp column as ISO-8601 UTC, or null. */
export const isoOrNull = (value: Date | string | null | undefined): string | null => (value ? iso(value) : null);

/** A case-insensitive `LIKE … ESCAPE '\'` pattern matching `text` anywhere (wildcards in it escaped). */
export const likePattern = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Where the page after one of `shown` rows from `offset` starts, out of `total`; null when it was the last. */
export const nextOffsetOf = (offset: number, shown: number, total: number): number | null => (offset + shown < total ? offset + shown : null);
