// The console's warning about the sweep of expired turns (docs/console.md, Overview): a
// game with a timed mode and no sweep recorded in the last minute is warned, through GET
// /api/games/:jeu/sweep (manette_admin.console_sweep) and on the overview page in
// Chromium; a recent sweep, or no timed mode, shows nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { freshDatabase, query } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';
import { applyGameFile } from '../api/config/apply.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

let url: string;
let con: TestConsole;
let dir: string;

beforeAll(async () => {
  url = await freshDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'manette-console-sweep-'));
  for (const game of [
    { jeu: 'sw-timed', nom: 'Timed', modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', delai_tour_s: 30 }, libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' } } },
    { jeu: 'sw-free', nom: 'Free', modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' } } },
  ]) {
    const file = path.join(dir, `${game.jeu}.json`);
    await writeFile(file, JSON.stringify(game));
    await applyGameFile(url, file);
  }
  con = await startTestConsole({ databaseUrl: url });
}, 120_000);
afterAll(async () => {
  await con?.close();
  await rm(dir, { recursive: true, force: true });
});

async function sweepOf(jeu: string) {
  const s = await con.session();
  const res = await s.fetch(`/api/games/${jeu}/sweep`);
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data;
}

describe('GET /api/games/:jeu/sweep', () => {
  it('a timed mode and no sweep ever: avertir', async () => {
    expect(await sweepOf('sw-timed')).toEqual({ modes_minutes: ['duel'], dernier_balayage: null, avertir: true });
    expect(await sweepOf('sw-free')).toEqual({ modes_minutes: [], dernier_balayage: null, avertir: false });
  });

  it('a sweep just now: no warning; one two minutes ago: the warning again', async () => {
    await query(url, 'select manette.sweep_expired_turns()');
    const now = await sweepOf('sw-timed');
    expect(now).toMatchObject({ modes_minutes: ['duel'], avertir: false, dernier_balayage: { par: 'postgres', chemin: 'sql' } });
    await query(url, `update manette.sweep_runs set ran_at = ran_at - interval '2 minutes'`);
    const old = await sweepOf('sw-timed');
    expect(old.avertir).toBe(true);
    expect(old.dernier_balayage.il_y_a_s).toBeGreaterThanOrEqual(120);
  });
});

describe.skipIf(!haveBrowser)('the overview page', () => {
  warnIfNoBrowser('test/console-sweep.test.ts');
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => { await browser?.close(); });

  it('shows the warning with the job to schedule on the timed game, and nothing on the other', async () => {
    const context = await browser.newContext();
    const page = await con.open(context, '#/sw-timed/overview');
    const warning = page.getByTestId('sweep-warning');
    await warning.waitFor();
    const text = await warning.innerText();
    expect(text).toContain('Turn timers are not applied');
    expect(text).toContain('Modes duel have a turn timer, and the last sweep of expired turns ran');
    expect(text).toContain(`select cron.schedule('manette-sweep-expired-turns', '1 seconds', 'select manette.sweep_expired_turns()');`);
    const other = await con.open(context, '#/sw-free/overview');
    await other.getByTestId('overview-tiles').waitFor();
    expect(await other.getByTestId('sweep-warning').count()).toBe(0);
    // A sweep runs: the warning goes at the next refresh (every 5 s).
    await query(url, 'select manette.sweep_expired_turns()');
    await warning.waitFor({ state: 'detached', timeout: 20_000 });
    await context.close();
  }, 60_000);
});
