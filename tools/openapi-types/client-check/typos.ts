// Mistakes a generated client must refuse to compile (never run). Each line below the
// expectation comment is an error for tsc; were one to compile, tsc would report the expectation
// as unused and the client test fails.
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const client = createClient<paths>({ baseUrl: 'http://localhost:3000' });

export async function typos(): Promise<void> {
  // A misspelt context field in the JSON feed request.
  // @ts-expect-error curency is not a context field
  await client.POST('/v1/feeds', { body: { xml: '<propertyList/>', context: { curency: 'AUD' } } });
  // A context field given the query's older name.
  // @ts-expect-error the JSON body names it defaultCountry
  await client.POST('/v1/validate', { body: { xml: '<propertyList/>', context: { country: 'NZ' } } });
  // A mode the service does not have.
  // @ts-expect-error mode is full or incremental
  await client.POST('/v1/feeds', { body: { xml: '<propertyList/>', mode: 'partial' } });
}
