import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * The axe-core rules whose outcome depends on colours alone: where a page differs only in its
 * colours (the console's dark scheme changes custom properties and nothing else), these are the
 * rules that can find something the other scheme did not.
 */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'] as const;

/**
 * Runs axe-core in the page (every rule, or only `rules`) (evaluated through the browser's debugging protocol, so the page's
 * Content-Security-Policy does not stop it) and returns the serious and critical violations,
 * each as "rule: help (where)" for a readable assertion.
 */
export async function seriousViolations(page: Page, rules?: readonly string[]): Promise<string[]> {
  await page.evaluate(axeSource);
  const options = { resultTypes: ['violations'], ...(rules ? { runOnly: { type: 'rule', values: rules } } : {}) };
  const violations = (await page.evaluate(
    (options) =>
      (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: unknown[] }> } }).axe
        .run(document, options)
        .then((r) => r.violations),
    options,
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join('; ')}${v.nodes.length > 3 ? `; +${v.nodes.length - 3} more` : ''})`,
    );
}
