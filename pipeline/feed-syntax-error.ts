/** The whole feed cannot be read (not well-formed, wrong root, empty, refused DOCTYPE). */
export class FeedSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${reason} (line ${line}, column ${column})`);
    this.name = 'FeedSyntaxError';
  }
}
