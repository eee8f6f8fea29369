export const errorSchema = {
  $id: 'Error',
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string', description: 'What is wrong, naming the field or position.' } },
} as const;
