// Issue 32's "Done when", walked as a new user would, on the twin of a hosted Supabase
// project with Supabase's new keys (a publishable key, legacy keys disabled, Manette's
// signing key imported and rotated in): deploy with docs/deploy.md (its block's commands,
// as written, test/support/hosted-project.ts); before the sweep of expired turns is
// scheduled, `npx manette doctor` and the console's overview say it is missing, with the
// fix; pg_cron enabled (the twin's stand-in, its scheduler running) and the two jobs
// scheduled exactly as the page's "Turn timers" note says, as `postgres`; the demo game
// (examples/demo/game.json as it is: mode 1v1, a 30 s turn timer, `sur_delai: abandon`)
// played through the Edge Function by two players over HTTP and realtime-js (the
// publishable key, their Manette realtime tokens); one player stops playing and the
// scheduled sweep, nobody reading the match, ends it at its expiry, both players receiving
// it; the console's capacity card shows this month's Realtime messages as the twin's
// Realtime counted them; `npx manette doctor` reports a healthy project.
//
// The proof of "on time" is an order, not a duration: the pg_cron run that ended the match
// is the first (or, when one straddled the expiry, the second) run that started after it.
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { mkdir, readFile } from 'node:fs/promises';
import { client, query } from './support/harness.js';
import { canDeployHere, deployPage, documentedCommands, startHostedProject, type HostedProject } from './support/hosted-project.js';
import { openWithLink, sessionFrom, startConsoleProcess, type ConsoleProcess } from './support/console.js';
import { haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';
import { waitUntil } from './support/wait.js';

const REPO = path.resolve(import.meta.dirname, '..');
const DEMO = path.join(REPO, 'examples', 'demo', 'game.json');
const ready = canDeployHere('hosted-done-when.test.ts');
warnIfNoBrowser('test/hosted-done-when.test.ts (its console pages)');

interface Check { check: string; ok: boolean; summary: string; problems: { problem: string; fix: string }[] }
interface Event { event: string; payload: any }

describe.skipIf(!ready)('issue 32, done when: a new user\'s Edge-only deployment in new-keys mode, with turn timers', () => {
  let hosted: HostedProject;
  let setupOutput = '';
  let con: ConsoleProcess;
  /** The page's $DB_URL, on the twin. */
  let dbUrl: string;
  let browser: Browser | undefined;
  let demo: any;
  /** The page's "Turn timers" note: its two `cron.schedule` statements, the sweep's then the cleanup's. */
  let jobs: string[] = [];

  beforeAll(async () => {
    demo = JSON.parse(await readFile(DEMO, 'utf8'));
    hosted = await startHostedProject({ databasePrefix: 'done_when', game: DEMO });
    setupOutput = await hosted.deploy();
    await hosted.startFunction();
    dbUrl = /^export DB_URL='([^']+)'/m.exec(hosted.substitute((await documentedCommands()).head))![1]!;
    // `manette console` on the project's database, as docs/console.md says for a Supabase
    // project (DATABASE_URL: the direct connection, as postgres); a data folder of its own,
    // so that it finds no local instance.
    const dataDir = path.join(hosted.work, '.manette');
    await mkdir(dataDir);
    con = await startConsoleProcess({ DATABASE_URL: dbUrl, MANETTE_DATA_DIR: dataDir });
    if (haveBrowser) browser = await launchBrowser();
    const page = await deployPage();
    const start = page.indexOf('- **Turn timers**');
    const note = page.slice(start, page.indexOf('\n- ', start));
    jobs = [...note.matchAll(/`(select cron\.schedule\([^`]*\);)`/g)].map((m) => m[1]!);
  }, 900_000);
  afterAll(async () => {
    await browser?.close();
    await con?.stop();
    await hosted?.close();
  });

  /** `npx manette doctor` against the project's database (the page's $DB_URL), and the API's URL (the function's DATABASE_URL). */
  async function doctor(json: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
    const { head } = await documentedCommands();
    const apiUrl = hosted.managementApi.secrets.get('DATABASE_URL')!;
    const script = `${hosted.substitute(head)}\nnpx manette doctor --db-url "$DB_URL" --api-url '${apiUrl}'${json ? ' --json' : ''}`;
    try {
      const r = await hosted.bash(script, { ...process.env, LANG: 'C', LC_ALL: '', LC_MESSAGES: '' });
      return { code: 0, ...r };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  }
  async function doctorJson(): Promise<{ code: number; healthy: boolean; checks: Check[] }> {
    const r = await doctor(true);
    const body = JSON.parse(r.stdout);
    expect(body.ok, r.stdout + r.stderr).toBe(true);
    return { code: r.code, healthy: body.data.healthy, checks: body.data.checks };
  }
  const failing = (checks: Check[]) => checks.filter((c) => !c.ok).map((c) => c.check);

  async function consoleGet(route: string): Promise<any> {
    const s = await sessionFrom(await con.freshLink());
    const res = await s.fetch(route);
    expect(res.status, route).toBe(200);
    return ((await res.json()) as { data: any }).data;
  }
  async function newContext(): Promise<BrowserContext> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    return context;
  }

  it('1. deployed with docs/deploy.md in new-keys mode: the function answers, the demo game is applied, its key printed', async () => {
    const { check } = await documentedCommands();
    const { stdout } = await hosted.bash(hosted.substitute(check), { ...process.env });
    expect(JSON.parse(stdout), hosted.fnOutput()).toEqual({ ok: true, data: { database: 'ok' } });
    expect(await query(dbUrl, `select slug from manette.games`)).toEqual([{ slug: 'demo' }]);
    expect(demo.modes['1v1']).toMatchObject({ delai_tour_s: 30, sur_delai: 'abandon' });
    expect(setupOutput).toContain('"api_key"');
    // New keys: Manette's key is the project's only key in use; the legacy secret is revoked.
    const signing = JSON.parse(hosted.managementApi.secrets.get('MANETTE_REALTIME_JWT_PRIVATE_KEY')!) as { kid: string };
    expect(hosted.project.list().filter((k) => k.status === 'in_use').map((k) => k.publicJwk?.kid)).toEqual([signing.kid]);
    expect(hosted.project.list().find((k) => k.legacy)?.status).toBe('revoked');
  }, 120_000);

  it('2. before the sweep is scheduled: `manette doctor` says it is missing, with the fix, and so does the console\'s overview', async () => {
    expect(jobs).toHaveLength(2);
    expect(jobs[0]).toContain('manette.sweep_expired_turns()');
    expect(jobs[1]).toContain('cron.job_run_details');

    const text = await doctor(false);
    expect(text.code, text.stdout + text.stderr).toBe(1);
    expect(text.stdout).toContain('✗ sweep of expired turns (within the last 60 seconds)');
    // The fix is the page's own statement.
    expect(text.stdout).toContain('  fix: On a Supabase project (Edge Function): enable the pg_cron extension (Database → Extensions), then in the SQL editor, as `postgres`: ' + jobs[0]);
    expect(text.stdout).toContain('1 problem(s) found.');
    let r = await doctorJson();
    expect(r).toMatchObject({ code: 1, healthy: false });
    expect(failing(r.checks)).toEqual(['sweep']);

    // The console's overview: the warning, through its route and on the page.
    expect(await consoleGet('/api/games/demo/sweep')).toEqual({ modes_minutes: ['1v1'], dernier_balayage: null, avertir: true });
    if (browser) {
      const context = await newContext();
      const page = await openWithLink(context, await con.freshLink(), '#/demo/overview');
      const warning = page.getByTestId('sweep-warning');
      await warning.waitFor();
      const shown = await warning.innerText();
      expect(shown).toContain('Turn timers are not applied');
      expect(shown).toContain(jobs[0]);
      await context.close();
    }

    // pg_cron enabled (Database → Extensions), no job yet: the fix is now the job alone.
    await hosted.enablePgCron();
    r = await doctorJson();
    expect(failing(r.checks)).toEqual(['sweep']);
    expect(r.checks.find((c) => c.check === 'sweep')!.problems.map((p) => p.fix)).toEqual([`In the SQL editor, as \`postgres\`: ${jobs[0]}`]);
  }, 180_000);

  it('3. the sweep scheduled exactly as the page says, as postgres: pg_cron runs it, and the console no longer warns', async () => {
    // The SQL editor runs as `postgres`.
    expect((await query<{ u: string }>(dbUrl, 'select current_user as u'))[0]!.u).toBe('postgres');
    for (const job of jobs) await query(dbUrl, job);
    expect(await query(dbUrl, `select jobname, schedule, username, active from cron.job order by jobid`)).toEqual([
      { jobname: 'manette-sweep-expired-turns', schedule: '1 seconds', username: 'postgres', active: true },
      { jobname: 'manette-clean-cron-runs', schedule: '17 * * * *', username: 'postgres', active: true },
    ]);
    await waitUntil(async () => (await query(dbUrl,
      `select 1 from manette.sweep_runs where application_name = 'pg_cron' and ran_by = 'postgres' and path = 'sql'`)).length > 0,
    'a sweep run by pg_cron', 60_000, 200);
    expect(await consoleGet('/api/games/demo/sweep')).toMatchObject({
      modes_minutes: ['1v1'], avertir: false, dernier_balayage: { par: 'postgres', chemin: 'sql' },
    });
  }, 120_000);

  let matchId = '';
  let seats: { x: { id: string; token: string }; o: { id: string; token: string } };
  const got = new Map<string, Event[]>();

  it('4. the demo played through the Edge Function; one player stops: the scheduled sweep ends the match at its expiry, both players receive it', async () => {
    const key = JSON.parse(setupOutput.split('\n').find((l) => l.includes('"api_key"'))!).api_key as string;
    const api = client(`${hosted.functionBase}/api/public/v1`, key);
    // Two players register, then log in, over HTTP.
    const players: { id: string; token: string }[] = [];
    for (const pseudo of ['Ada', 'Bob']) {
      const registered = await api.register(pseudo);
      const login = await api.post('/players/login', { identifiant: pseudo, password: 'motdepasse-solide' });
      expect(login.status, JSON.stringify(login.body)).toBe(200);
      expect(login.body.data.joueur.id).toBe(registered.data.joueur.id);
      players.push({ id: login.body.data.joueur.id, token: login.body.token });
    }
    // Matchmaking.
    const waiting = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: players[0]!.token });
    expect(waiting.body, JSON.stringify(waiting.body)).toMatchObject({ status: 'waiting' });
    const matched = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: players[1]!.token });
    expect(matched.body, JSON.stringify(matched.body)).toMatchObject({ ok: true, status: 'matched' });
    matchId = matched.body.partie_id;
    const first = matched.body.participants[0].joueur_id as string;
    const [x, o] = players[0]!.id === first ? [players[0]!, players[1]!] : [players[1]!, players[0]!];
    seats = { x, o };

    // Both join with realtime-js (the publishable key, their Manette token) where the demo's
    // realtime.evenements, etat_aux_autres, sends a participant the others' actions: their own
    // private channel (docs/matches.md, "Events per action").
    for (const p of [x, o]) {
      const config = (await api.get('/realtime/config', { token: p.token })).body;
      expect(config).toMatchObject({ ok: true, url: hosted.realtime.url, key: hosted.project.publishableKeys.default, private: true,
        evenements: 'etat_aux_autres' });
      const events: Event[] = [];
      got.set(p.id, events);
      const rt = hosted.realtimeClient(config);
      await rt.setAuth(config.token);
      await hosted.joinTopic(rt, `manette_joueur_${p.id}`, true, (m) => events.push({ event: m.event, payload: m.payload }));
    }
    const both = (n: number, timeoutMs = 20_000) =>
      waitUntil(() => [x, o].every((p) => got.get(p.id)!.length >= n), `${n} events at both players`, timeoutMs, 20);

    // X plays, O plays: each move reaches the other player as one `etat` carrying it (the
    // player who acted has the same partie in its HTTP answer).
    const moves: [typeof x, number][] = [[x, 4], [o, 0]];
    for (const [p, cell] of moves) {
      const r = await api.post('/match/action', { partie_id: matchId, action: 'jouer', donnees: { case: cell } }, { token: p.token });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    await both(1);
    for (const [p, other, cell, board] of [[o, x, 4, [null, null, null, null, 'X', null, null, null, null]],
      [x, o, 0, ['O', null, null, null, 'X', null, null, null, null]]] as const) {
      const events = got.get(p.id)!;
      expect(events.map((e) => e.event)).toEqual(['etat']);
      expect(events[0]!.payload).toMatchObject({ id: matchId, statut: 'en_cours', etat_plateau: { cases: board },
        action: { joueur_id: other.id, action: 'jouer', donnees: { case: cell } } });
    }
    // X stops playing. Its turn expires 30 s after O's move (the timer of the demo's 1v1).
    const lastEtat = got.get(x.id)![0]!.payload;
    expect(lastEtat.tour_joueur).toBe(x.id);
    const expiry = lastEtat.tour_expire_le as string;
    expect(Date.parse(expiry) - Date.parse(lastEtat.maj_le)).toBe(30_000);

    // Nobody reads the match (a read would apply the expiry itself): the sweep must end it.
    // (The bound, the 30 s timer and a generous margin on a shared machine, only turns a hang into a failure.)
    // The server's own action has no player who acted: both players get it.
    await both(2, 120_000).catch(() => { throw new Error(`the match was not ended: ${JSON.stringify([...got.values()])}`); });
    for (const p of [x, o]) {
      const events = got.get(p.id)!;
      expect(events.map((e) => e.event)).toEqual(['etat', 'etat']);
      // Ended at the expired instant itself: O wins by X's timeout.
      expect(events[1]!.payload).toMatchObject({ id: matchId, statut: 'terminee', gagnant_id: o.id, tour_joueur: null,
        tour_expire_le: null, termine_le: expiry, maj_le: expiry,
        action: { joueur_id: null, action: 'delai_depasse', numero_tour: 3, donnees: { joueur_id: x.id, sur_delai: 'abandon' } } });
    }

    // Ended by the scheduled sweep (pg_cron, as postgres), not by anything else: the one run
    // that changed a match, the first or second to start after the expiry.
    const runs = await query<{ id: string; ran_by: string; path: string; application_name: string; applied: number; turns: number; after: boolean }>(dbUrl,
      `select id::text, ran_by, path, application_name, applied, turns, ran_at >= $1::timestamptz as after
       from manette.sweep_runs order by id`, [expiry]);
    const applying = runs.filter((r) => r.applied > 0);
    expect(applying.map(({ ran_by, path, application_name, applied, turns }) => ({ ran_by, path, application_name, applied, turns })))
      .toEqual([{ ran_by: 'postgres', path: 'sql', application_name: 'pg_cron', applied: 1, turns: 1 }]);
    expect(runs.every((r) => r.ran_by === 'postgres' && r.application_name === 'pg_cron')).toBe(true);
    const before = runs.filter((r) => r.after && BigInt(r.id) < BigInt(applying[0]!.id));
    expect(before.length).toBeLessThanOrEqual(1);
    expect(await query(dbUrl, `select status, winner_player_id from manette.matches where id = $1`, [matchId]))
      .toEqual([{ status: 'terminee', winner_player_id: o.id }]);
  }, 180_000);

  it('5. the console shows this month\'s Realtime messages, as the twin\'s Realtime counted them', async () => {
    expect(matchId).not.toBe('');
    // The count is stored every 5 s: once the console's figure and the Realtime's count agree
    // (read on both sides of the console's answer, so that no message came in between).
    const capacity = await waitUntil(async () => {
      const counted = hosted.realtime.messagesThisMonth();
      const c = (await consoleGet('/api/games/demo/overview')).capacite;
      return c.messages_mois === counted && hosted.realtime.messagesThisMonth() === counted ? c : undefined;
    }, 'the console\'s count equal to the Realtime\'s', 60_000, 500);
    expect(capacity).toMatchObject({ source: 'realtime_local', plan: 'free' });
    // What Supabase bills for this match (etat_aux_autres, a spectated mode): each move, one
    // row on the other player's channel, delivered once, and one row on the room (nobody
    // watching): 3; the timeout, no player acted: one row per player, each delivered, and the
    // room's: 5; its creation, `matched` to each player's own channel (sent, but received by
    // nobody: the players learnt of the match from the matchmaking's HTTP answer) and one row
    // to the game's topic: 3. The console's estimate for a hosted project counts each action
    // as a move (3) and every participant as subscribed when matched (docs/capacity.md).
    expect(capacity.messages_mois).toBe(2 * 3 + 5 + 3);
    expect(capacity.estimation).toMatchObject({ actions_mois: 3, parties_mois: 1, messages_mois: 3 * 3 + 2 * 2 + 1 });
    if (browser) {
      const context = await newContext();
      const page = await openWithLink(context, await con.freshLink(), '#/demo/overview');
      await page.getByTestId('capacity').waitFor();
      const month = page.locator('[data-testid="capacity-month"] .stat-value');
      await waitUntil(async () => ((await month.textContent()) ?? '').replace(/\D/g, '') !== '', 'the month\'s messages on the page', 20_000, 100);
      expect(Number((await month.textContent())!.replace(/\D/g, ''))).toBe(hosted.realtime.messagesThisMonth());
      expect(await page.getByTestId('capacity-source').textContent()).toMatch(/^Counted by the local Realtime as Supabase bills them/);
      expect(await page.getByTestId('sweep-warning').count()).toBe(0);
      await context.close();
    }
  }, 120_000);

  it('6. `npx manette doctor` reports a healthy project', async () => {
    const text = await doctor(false);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toContain('No problem found.');
    expect(text.stdout).not.toContain('✗');
    const r = await doctorJson();
    expect(r).toMatchObject({ code: 0, healthy: true });
    expect(r.checks.map((c) => c.check)).toEqual(expect.arrayContaining(['roles', 'grants', 'api_role', 'realtime_partitions', 'realtime_policies', 'sweep', 'cron_log']));
    expect(failing(r.checks)).toEqual([]);
  }, 120_000);
});
