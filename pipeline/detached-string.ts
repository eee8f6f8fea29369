/**
 * A copy of a string that shares no memory with the text it was cut from. V8 keeps a substring
 * (and a string built by joining one to others) as a view of its parent, so a 20-character
 * uniqueID cut from a 64 KB piece of feed text keeps the whole piece alive for as long as the
 * uniqueID is kept. Whatever outlives a batch (a feed's issues, its listing keys) is detached;
 * before, a 110 MB first load read on one thread ended holding about 80 MB of feed text that way.
 * A JSON round trip makes the copy: it keeps every string as it was (lone surrogates are written
 * as escapes and read back), and a string of Latin-1 characters stays one byte per character.
 * V8 makes such views only of 13 characters or more (shorter substrings and joins are copies), so
 * shorter text is returned as it is.
 */
export function detached(text: string): string {
  return text.length < 13 ? text : JSON.parse(JSON.stringify(text));
}
