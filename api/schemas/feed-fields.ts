/**
 * The members that every view of one stored feed carries (FeedSummary in the key's feed history,
 * FeedStatus at GET /v1/feeds/{feedId}): the same feed_events columns, with the same meaning, listed in
 * the same order. Each view adds its own status, outcome and format wording and its own members.
 */

/** The members a feed view starts with: which feed, what became of it, where it came from and how big it was. */
export const feedHeadRequired = ['feedId', 'status', 'outcome', 'source', 'format', 'mode', 'officeScope', 'bodyBytes'] as const;

/** The members after the head: how often it was tried and when it was stored and finished. */
export const feedRunRequired = ['attempts', 'createdAt', 'finishedAt'] as const;

/** The head's properties, in the order of feedHeadRequired; `own` gives the view's wording of status, outcome and format. */
export const feedHeadProperties = <S, O, F>(own: { status: S; outcome: O; format: F }) => ({
  feedId: { type: 'string', format: 'uuid' } as const,
  status: own.status,
  outcome: own.outcome,
  source: { enum: ['api', 'sftp'] } as const,
  format: own.format,
  mode: { enum: ['full', 'incremental'] } as const,
  officeScope: { type: 'array', items: { type: 'string' } } as const,
  bodyBytes: { type: 'integer' } as const,
});

/** The properties of feedRunRequired. */
export const feedRunProperties = {
  attempts: { type: 'integer' },
  createdAt: { type: 'string', format: 'date-time' },
  finishedAt: { type: ['string', 'null'], format: 'date-time' },
} as const;

/** Why a feed failed or was rejected (null otherwise). */
export const feedErrorProperty = { type: ['string', 'null'], description: 'failed or rejected: why, in a plain sentence.' } as const;
