import { answer, errorResponse, json, queryParameters, uuidPath } from './openapi-helpers.js';

/** Paths of saved searches and alerts (docs/alerts.md). */
export function alertPaths(): Record<string, unknown> {
  const tokenNotFound = errorResponse('No alert has this token (deleted, ended, or not confirmed within 48 hours)');
  return {
    '/v1/alerts': {
      post: {
        summary: 'Save a search and ask for alerts of new listings, price drops and returns to the market',
        description:
          'Checked in this order: schema (400), consent true (400), honeypot `website` empty (403), bot challenge when TURNSTILE_SECRET is set (403), time zone (400), the search (400: the same rules as GET /v1/listings; it must name a place), address not blocked (403). Then a confirmation link is mailed to the address (double opt-in): nothing else is sent to it before it confirms, and an unconfirmed request is deleted after 48 hours. The answer is the same whether the address already has alerts or not. Rate limited per client address (ALERT_RATE_LIMIT per hour, 429); at most 3 confirmation mails to an address for requests it has not confirmed (they expire after 48 hours), and 25 alerts per address.',
        requestBody: { required: true, content: json('AlertRequest') },
        responses: {
          202: { description: 'Accepted: a confirmation link is on its way unless the address is at a limit', content: json('AlertAccepted') },
          400: errorResponse(
            'Invalid request, no consent, a search parameter that is wrong or not for alerts, a search without a place, or an unknown time zone',
          ),
          403: errorResponse('Rejected (honeypot, bot challenge, blocklist)'),
          429: errorResponse('Too many alert requests from this address'),
          503: errorResponse('Database unavailable'),
        },
      },
      get: {
        summary: "The alerts of the address a token belongs to (the token from any of its mails' links)",
        parameters: queryParameters('AlertTokenQuery'),
        responses: {
          200: answer('Every alert of the address, oldest first', 'AlertSubscriptionList'),
          400: errorResponse('No token, or not one of this service’s'),
          404: tokenNotFound,
          503: errorResponse('Database unavailable'),
        },
      },
    },
    '/v1/alerts/confirm': {
      post: {
        summary: 'Confirm an alert with the token of its confirmation mail',
        description:
          'Confirming again answers the same. From now on, matching listings are mailed: instant ones within a minute, daily ones at 07:00 in the alert’s time zone.',
        requestBody: { required: true, content: json('AlertTokenRequest') },
        responses: {
          200: answer('The alert, confirmed', 'AlertSubscription'),
          400: errorResponse('No token'),
          404: tokenNotFound,
          503: errorResponse('Database unavailable'),
        },
      },
    },
    '/v1/alerts/unsubscribe': {
      post: {
        summary: 'Unsubscribe in one click (RFC 8058): the URL of the List-Unsubscribe header of every alert mail',
        description:
          'Mail clients POST `List-Unsubscribe=One-Click` here; the token in the URL decides, the body is not read. The alert is deleted with what it kept about the address.',
        parameters: queryParameters('AlertTokenQuery'),
        responses: {
          200: {
            description: 'Unsubscribed',
            content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { const: 'unsubscribed' } } } } },
          },
          400: errorResponse('No token'),
          404: tokenNotFound,
          503: errorResponse('Database unavailable'),
        },
      },
    },
    '/v1/alerts/{id}': {
      delete: {
        summary: 'Delete one of the address’s alerts, with the token of any of them',
        parameters: [uuidPath('id', 'Alert id (from GET /v1/alerts)'), ...queryParameters('AlertTokenQuery')],
        responses: {
          204: { description: 'Deleted' },
          400: errorResponse('No token, or an id that is not a UUID'),
          404: errorResponse('No such alert among those of the address the token belongs to'),
          503: errorResponse('Database unavailable'),
        },
      },
    },
  };
}
