// Shared Chromium launcher for browser tests (Debian's Chromium driven by playwright-core).
// A machine without Chromium skips those tests: use `describe.skipIf(!haveBrowser)`.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveBrowser = existsSync(CHROMIUM);

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function warnIfNoBrowser(file: string): void {
  if (!haveBrowser) console.warn(`${file}: ${CHROMIUM} not found, skipped (apt-get install chromium)`);
}

export function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, ...options, args: [...CHROMIUM_ARGS, ...(options.args ?? [])] });
}

/** Where browser tests save their screenshots: docs/img with UPDATE_SCREENSHOTS=1 (then
 *  look at them and commit), otherwise a temporary folder, so a test run leaves the tree clean. */
export const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1'
  ? path.join(import.meta.dirname, '..', '..', 'docs', 'img')
  : mkdtempSync(path.join(tmpdir(), 'manette-screenshots-'));
