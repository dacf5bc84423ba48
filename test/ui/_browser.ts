// Helpers of the admin UI's browser tests: where chromium and the screenshots are, the console watch, panels by title.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { ensureBuilt } from '../cli/cli-helpers.ts';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts', 'ui');

/** Builds the bundle if it is stale, launches Debian's chromium and makes the screenshots' folder (for beforeAll). */
export async function launchBrowser(): Promise<Browser> {
  await ensureBuilt();
  if (!existsSync(chromiumPath)) throw new Error(`No chromium at ${chromiumPath}: npm test installs it (build/prepare-test-machine.mjs), or apt-get install -y chromium`);
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  mkdirSync(artifacts, { recursive: true });
  return browser;
}

/** Every console error, uncaught exception and CSP violation of the page. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  void page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  return problems;
}

/** The panel (section.panel) whose heading is exactly `title`. */
export const panel = (page: Page, title: string) => page.locator('section.panel', { has: page.locator(`h2:text-is("${title}")`) });

/**
 * Each cell's text as read aloud: without what is aria-hidden (a source's letter avatar), trimmed. A source cell
 * shows "N newsletter" on screen; its name is "newsletter".
 */
export const cellNames = (cells: Locator) =>
  cells.evaluateAll((elements) =>
    elements.map((element) => {
      const copy = element.cloneNode(true) as Element;
      for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
      return (copy.textContent ?? '').trim();
    }),
  );
