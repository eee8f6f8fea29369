/**
 * Named HTML entities that real REAXML exports contain although XML does not define them
 * (copied from CRM rich-text fields). Each maps to literal text, never to markup, so nothing
 * expands recursively; an entity outside this list is still a well-formedness error.
 */
export const HTML_ENTITIES: Readonly<Record<string, string>> = {
  nbsp: '\u00a0', ndash: '\u2013', mdash: '\u2014', lsquo: '\u2018', rsquo: '\u2019',
  sbquo: '\u201a', ldquo: '\u201c', rdquo: '\u201d', bdquo: '\u201e', hellip: '\u2026',
  bull: '\u2022', middot: '\u00b7', copy: '\u00a9', reg: '\u00ae', trade: '\u2122',
  deg: '\u00b0', sup2: '\u00b2', sup3: '\u00b3', frac12: '\u00bd', frac14: '\u00bc',
  frac34: '\u00be', times: '\u00d7', euro: '\u20ac', pound: '\u00a3', cent: '\u00a2',
  yen: '\u00a5', laquo: '\u00ab', raquo: '\u00bb', eacute: '\u00e9', egrave: '\u00e8',
  ecirc: '\u00ea', aacute: '\u00e1', agrave: '\u00e0', acirc: '\u00e2', ouml: '\u00f6',
  uuml: '\u00fc', auml: '\u00e4', ccedil: '\u00e7', ntilde: '\u00f1', szlig: '\u00df',
};
