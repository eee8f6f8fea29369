// Prints the TypeScript types openapi-typescript generates from an OpenAPI document (a file path).
import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

const document = JSON.parse(readFileSync(process.argv[2], 'utf8'));
process.stdout.write(astToString(await openapiTS(document)));
