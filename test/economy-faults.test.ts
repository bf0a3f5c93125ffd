// The economy under crashes (issue 22): a storm of purchases
// (POST /shop/acheter, each with its own Idempotency-Key) by several players through a
// real `manette start` process, on a Postgres of the test's own (an embedded twin under
// its supervisor, durable: fsync and synchronous commits on, as a hosted database), while
//   1. the API's process group is killed with SIGKILL and started again, then
//   2. the postmaster is killed with SIGKILL (its supervisor starts it again; the API's
//      pool reconnects by itself).
// Every purchase is retried with ITS key until it gets an answer (network errors and 5xx
// are retried, as a client does after a lost answer), so in the end every purchase is
// answered. Then, on the database: every purchase answered 200 is there (per player and
// article, the ledger's `achat` rows are exactly the acknowledged purchases: one debit row
// and one grant row each, never two for a retried key), every stored balance and inventory
// line equals the sum of its ledger deltas (one query), no balance is negative, and a key
// replayed after the crashes answers the first response and changes nothing.
// No timed assertion: waits are for conditions, bounded only so that a failure ends.
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type RunningPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { client } from './support/harness.js';
import { freePort } from './support/net.js';
import { startManette, stopManette, type ManetteProcess } from './support/manette-process.js';

const GAME = {
  jeu: 'crash-shop', nom: 'Crash shop',
  monnaies: { or: { nom: 'Or', depart: 1_000_000 }, gemmes: { nom: 'Gemmes', depart: 100_000, max: 1_000_000_000 } },
  objets: { potion: { nom: 'Potion', empilable: true }, parchemin: { nom: 'Parchemin', empilable: true } },
  boutique: [
    { code: 'potion', nom: 'Potion', prix: 3, devise: 'or', contenu: { objets: { potion: 1 } } },
    { code: 'parchemin', nom: 'Parchemin', prix: 2, devise: 'gemmes', contenu: { objets: { parchemin: 1 } } },
    { code: 'pack-or', nom: "Pack d'or", prix: 1, devise: 'gemmes', contenu: { monnaies: { or: 5 } } },
  ],
};
const ARTICLES: Record<string, { prix: number; devise: string; grants: { type: 'monnaie' | 'objet'; code: string; n: number }[] }> = {
  potion: { prix: 3, devise: 'or', grants: [{ type: 'objet', code: 'potion', n: 1 }] },
  parchemin: { prix: 2, devise: 'gemmes', grants: [{ type: 'objet', code: 'parchemin', n: 1 }] },
  'pack-or': { prix: 1, devise: 'gemmes', grants: [{ type: 'monnaie', code: 'or', n: 5 }] },
};
const PLAYERS = 6;
const IN_FLIGHT = 12;
/** Acknowledged purchases to reach before each kill, and after the last one. */
const PER_PHASE = 60;

let dir: string;
let server: RunningPostgres;
let apiKey: string;
let api: ManetteProcess | undefined;
/** The API's current base URL (a restarted process listens on another port). */
let base = '';

async function startApi(): Promise<void> {
  api = await startManette(server.url, path.join(dir, 'data'), {
    MANETTE_WORKERS: '1',
    // This test's own cluster: its local Realtime reads it as that cluster's superuser.
    MANETTE_REALTIME_DATABASE_URL: server.adminUrl,
  });
  base = api.base;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'manette-econ-faults-'));
  await chmod(dir, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  // Durable (persistent: fsync and synchronous_commit on): an acknowledged commit must survive a kill -9.
  server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: true });
  await migrate(server.url);
  const file = path.join(dir, 'game.json');
  await writeFile(file, JSON.stringify(GAME));
  apiKey = (await applyGameFile(server.url, file)).api_key;
  await startApi();
}, 240_000);

afterAll(async () => {
  if (api) await stopManette(api.proc);
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => Promise<boolean> | boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${api?.out() ?? ''}`);
    await sleep(50);
  }
}

async function sql<T extends pg.QueryResultRow = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try { return (await c.query<T>(text, values)).rows; } finally { await c.end(); }
}

interface Purchase {
  player: number; key: string; code: string; quantite: number;
  /** Attempts it took (more than one: an answer was lost to a crash and the key was replayed). */
  attempts: number;
  status?: number; body?: any;
}

/**
 * One purchase, retried with the same key and body until it gets an answer: network
 * errors (the API is down) and 5xx (Postgres is down) are lost answers; anything else is
 * the answer. Bounded, so that a server that never comes back fails the test.
 */
async function buy(p: Purchase, token: string): Promise<void> {
  const end = Date.now() + 120_000;
  for (;;) {
    p.attempts++;
    try {
      const res = await fetch(`${base}/shop/acheter`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'x-player-token': token, 'content-type': 'application/json', 'idempotency-key': p.key },
        body: JSON.stringify({ code: p.code, quantite: p.quantite }),
        signal: AbortSignal.timeout(20_000),
      });
      const body = await res.json().catch(() => undefined);
      if (res.status < 500) { p.status = res.status; p.body = body; return; }
    } catch { /* connection refused or reset: the API is down */ }
    if (Date.now() > end) throw new Error(`purchase ${p.key} never answered\n${api?.out() ?? ''}`);
    await sleep(100);
  }
}

describe('purchases survive a kill -9 of the API and of Postgres', () => {
  it('every acknowledged purchase is in the ledger once, every balance equals its ledger', async () => {
    const shop = client(base, apiKey);
    const players: { id: string; token: string }[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const r = await shop.register(`crash_${i}`);
      players.push({ id: r.data.joueur.id, token: r.token });
    }

    // The storm: IN_FLIGHT loops, each buying for a player in turn, until told to stop.
    const purchases: Purchase[] = [];
    const answered = () => purchases.filter((p) => p.status === 200).length;
    let stop = false;
    let n = 0;
    const codes = Object.keys(ARTICLES);
    const loops = Array.from({ length: IN_FLIGHT }, async () => {
      while (!stop) {
        const i = n++;
        const p: Purchase = { player: i % PLAYERS, key: randomUUID(), code: codes[Math.floor(i / PLAYERS) % codes.length]!,
          quantite: 1 + (Math.floor(i / (PLAYERS * codes.length)) % 3), attempts: 0 };
        purchases.push(p);
        await buy(p, players[p.player]!.token);
      }
    });

    // 1. kill -9 of the API (its whole process group) mid-storm, then a new one.
    await until(() => answered() >= PER_PHASE, 'the first purchases');
    const first = api!;
    const gone = new Promise<void>((r) => first.proc.once('exit', () => r()));
    process.kill(-first.proc.pid!, 'SIGKILL');
    await gone;
    api = undefined;
    const beforeRestart = answered();
    await startApi();
    await until(() => answered() >= beforeRestart + PER_PHASE, 'purchases after the API restart');

    // 2. kill -9 of the postmaster mid-storm; its supervisor starts it again.
    const pidFile = path.join(dir, 'pg', 'postmaster.pid');
    const postmaster = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    const beforePgKill = answered();
    await until(async () => {
      const now = Number((await readFile(pidFile, 'utf8').catch(() => '0')).split('\n')[0]);
      return now > 0 && now !== postmaster;
    }, 'a new postmaster');
    await until(() => answered() >= beforePgKill + PER_PHASE, 'purchases after the Postgres restart');
    stop = true;
    await Promise.all(loops);

    // Every purchase was answered; none refused (the balances cover them all).
    expect(purchases.filter((p) => p.status !== 200).map((p) => ({ key: p.key, status: p.status, body: p.body }))).toEqual([]);
    // The crashes did cut answers: some purchases were only answered on a replay of their key.
    expect(purchases.filter((p) => p.attempts > 1).length).toBeGreaterThan(0);
    for (const p of purchases) {
      const a = ARTICLES[p.code]!;
      expect(Object.keys(p.body)).toEqual(['ok', 'data']);
      expect(p.body.data.achat).toMatchObject({ article: p.code, quantite: p.quantite, prix_total: a.prix * p.quantite, devise: a.devise });
    }

    // A few acknowledged keys replayed now: the first response, nothing changes.
    const ledgerCount = async () => Number((await sql('select count(*) as n from manette.ledger'))[0].n);
    const rowsBefore = await ledgerCount();
    for (const p of purchases.filter((x) => x.attempts > 1).concat(purchases.slice(0, 10))) {
      const again = { ...p, attempts: 0, status: undefined, body: undefined };
      await buy(again, players[p.player]!.token);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(p.body);
    }
    expect(await ledgerCount()).toBe(rowsBefore);

    // Per player and article, what was acknowledged: purchases, units, price paid.
    const expected = new Map<string, { achats: number; unites: number; paye: number }>();
    for (const p of purchases) {
      const k = `${players[p.player]!.id}/${p.code}`;
      const e = expected.get(k) ?? { achats: 0, unites: 0, paye: 0 };
      e.achats++; e.unites += p.quantite; e.paye += ARTICLES[p.code]!.prix * p.quantite;
      expected.set(k, e);
    }
    // What the ledger holds for purchases, by the same keys (ref {article, quantite}).
    const ledger = await sql<{ player_id: string; article: string; kind: string; code: string; rows: string; units: string; total: string }>(
      `select player_id, ref->>'article' as article, kind, code,
              count(*) as rows, sum((ref->>'quantite')::bigint) as units, sum(delta) as total
       from manette.ledger where reason = 'achat'
       group by 1, 2, 3, 4 order by 1, 2, 3, 4`);
    const got = new Map<string, Map<string, { rows: number; units: number; total: number }>>();
    for (const r of ledger) {
      const k = `${r.player_id}/${r.article}`;
      if (!got.has(k)) got.set(k, new Map());
      got.get(k)!.set(`${r.kind}/${r.code}`, { rows: Number(r.rows), units: Number(r.units), total: Number(r.total) });
    }
    expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [k, e] of expected) {
      const code = k.split('/')[1]!;
      const a = ARTICLES[code]!;
      const lines: Record<string, { rows: number; units: number; total: number }> = {
        [`monnaie/${a.devise}`]: { rows: e.achats, units: e.unites, total: -e.paye },
      };
      for (const g of a.grants) lines[`${g.type}/${g.code}`] = { rows: e.achats, units: e.unites, total: g.n * e.unites };
      expect(Object.fromEntries(got.get(k)!), k).toEqual(lines);
    }

    // The invariant, in one query: every stored balance and inventory line equals the sum
    // of its ledger deltas, and none is negative.
    const differ = await sql(`
      with stored as (
        select game_id, player_id, 'monnaie' as kind, currency as code, amount from manette.balances
        union all
        select game_id, player_id, 'objet', item, quantity from manette.inventory),
      sums as (select player_id, kind, code, sum(delta) as total from manette.ledger group by 1, 2, 3)
      select s.player_id, s.kind, s.code, s.amount, coalesce(l.total, 0) as ledger
      from stored s left join sums l using (player_id, kind, code)
      where s.amount <> coalesce(l.total, 0) or s.amount < 0`);
    expect(differ).toEqual([]);
    // Every player bought something of each currency: their balances are stored and checked above.
    const stored = await sql<{ n: string }>('select count(*) as n from manette.balances');
    expect(Number(stored[0]!.n)).toBe(PLAYERS * 2);

    // And the API (the process started after the crash) answers what the database holds.
    const now = client(base, apiKey);
    for (const [i, pl] of players.entries()) {
      const wallet = (await now.get('/economie/portefeuille', { token: pl.token })).body.data;
      const rows = await sql<{ currency: string; amount: string }>(
        'select currency, amount from manette.balances where player_id = $1 order by currency', [pl.id]);
      expect(Object.fromEntries(wallet.map((w: any) => [w.code, Number(w.solde)])), `player ${i}`)
        .toEqual(Object.fromEntries(rows.map((r) => [r.currency, Number(r.amount)])));
    }
  }, 600_000);
});
