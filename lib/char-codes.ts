/** The character codes the hand-written scanners compare against (the JSON depth gauge, the REAXML splitter), named once. */
export const CHAR = {
  NEWLINE: 0x0a,
  BANG: 0x21,
  DOUBLE_QUOTE: 0x22,
  SINGLE_QUOTE: 0x27,
  SLASH: 0x2f,
  LESS_THAN: 0x3c,
  GREATER_THAN: 0x3e,
  QUESTION: 0x3f,
  OPEN_BRACKET: 0x5b,
  BACKSLASH: 0x5c,
  CLOSE_BRACKET: 0x5d,
  OPEN_BRACE: 0x7b,
  CLOSE_BRACE: 0x7d,
} as const;
