import { objectSchema, requiredObject } from './object-schema.js';
export const healthSchema = objectSchema('Health', { status: { type: 'string', example: 'ok' } });

export const readinessSchema = objectSchema(
  'Readiness',
  {
    status: { enum: ['ready', 'unavailable'] },
    error: { type: 'string' },
    checks: {
      type: 'object',
      description:
        'database always; redis when REDIS_URL is set; readReplica when DATABASE_READ_URL is set (its loss does not make the service unavailable: public reads go to the primary meanwhile).',
      properties: {
        database: { enum: ['ok', 'unavailable'] },
        redis: { enum: ['ok', 'unavailable'] },
        readReplica: requiredObject({
          state: { enum: ['ok', 'unavailable'], description: 'ok: public reads go to the replica; unavailable: to the primary.' },
          lagSeconds: {
            type: ['number', 'null'],
            description: 'Age of the last transaction it replayed while it has WAL left to replay; 0 when caught up; null while unavailable.',
          },
          lagBytes: { type: ['number', 'null'], description: 'Bytes of the primary’s WAL not yet replayed; null while unavailable.' },
          checkedAt: { type: ['string', 'null'], format: 'date-time', description: 'When it was last looked at (every 2 seconds).' },
        }),
      },
    },
  },
  { required: ['status', 'checks'] },
);
