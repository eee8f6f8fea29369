import { objectSchema } from './object-schema.js';

export const errorSchema = objectSchema('Error', { error: { type: 'string', description: 'What is wrong, naming the field or position.' } });
