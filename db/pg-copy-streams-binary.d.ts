/** The part of pg-copy-streams-binary this project uses (the package ships no types). */
declare module 'pg-copy-streams-binary' {
  import type { Transform } from 'node:stream';

  /** A CommonJS module: its functions hang off the default export. */
  const copyBinary: {
    /** Reads COPY ... TO STDOUT (FORMAT binary) output of one column and passes on the fields' raw bytes, rows run together. */
    rawReader(): Transform;
  };
  export default copyBinary;
}
