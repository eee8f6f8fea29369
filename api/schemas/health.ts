export const healthSchema = {
  $id: 'Health',
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', example: 'ok' } },
} as const;

export const readinessSchema = {
  $id: 'Readiness',
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { enum: ['ready', 'unavailable'] },
    error: { type: 'string' },
    checks: {
      type: 'object',
      description: 'database always; redis when REDIS_URL is set.',
      properties: { database: { enum: ['ok', 'unavailable'] }, redis: { enum: ['ok', 'unavailable'] } },
    },
  },
} as const;
