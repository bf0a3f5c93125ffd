// api.shop_acheter against its limit, in one run on one throwaway Postgres 17:
//   node bin/run-ts.js bench/shop-purchase.ts [--players 10] [--seconds 5]
//
// `purchase`: C connections (one per player) call api.shop_acheter as the façade does (as
// manette_api, one call per purchase of one potion for 1 gold, no Idempotency-Key).
// `minimal`: the same connections run the smallest transaction doing the same writes, in
// one statement: debit the balance row with a guarded update (`amount >= price`), upsert
// the inventory line, insert the two ledger rows (debit and grant, with their `after`), no
// authentication, no article or cap checks, no RLS (as the URL's user). Both with commits
// not flushed (synchronous_commit off) and durable (on; fsync on). Prints purchases/s and
// the ratio purchase / minimal for each.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { closedLoop, freePort, sessionPooler } from './support.js';

const { values: opts } = parseArgs({
  options: {
    players: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
  },
});
const PLAYERS = Number(opts.players);
const SECONDS = Number(opts.seconds);

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-shop-'));
await chmod(dir, 0o755);
// Durable server (fsync on); each phase sets synchronous_commit per session.
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: true });
// Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
const pooler = await sessionPooler(server);
const dbUrl = pooler.url(server.url);
try {
  await migrate(dbUrl);
  const gameFile = path.join(dir, 'bench.json');
  // Enough gold for every purchase of the run (1 each), a stackable potion without cap.
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench',
    monnaies: { or: { nom: 'Or', depart: 1_000_000_000_000 } },
    objets: { potion: { nom: 'Potion', empilable: true } },
    boutique: [{ code: 'potion', nom: 'Potion', prix: 1, devise: 'or', contenu: { objets: { potion: 1 } } }],
  }));
  const key = (await applyGameFile(dbUrl, gameFile)).api_key;

  // Players through the api functions, as the façade calls them, each with a first purchase
  // (its balance row and its `depart` ledger row exist before either loop).
  // A direct connection of its own: a session-level role is safe here (no pooler).
  const api = new pg.Client({ connectionString: dbUrl });
  api.on('error', (e) => console.error('api client:', e.message));
  await api.connect();
  await api.query('set role manette_api');
  const call = async (fn: string, ctx: object, body: object) =>
    (await api.query(`select api.${fn}($1::jsonb, $2::jsonb) as r`, [JSON.stringify(ctx), JSON.stringify(body)])).rows[0].r;
  const players: { id: string; token: string }[] = [];
  for (let i = 0; i < PLAYERS; i++) {
    const token = `pt_${String(i).padStart(5, '0')}${'b'.repeat(43)}`;
    const reg = await call('players_register', { key }, { pseudo: `buyer${i}`, email: `buyer${i}@bench.test`, password_hash: 'scrypt$bench', token });
    await call('shop_acheter', { key, token }, { code: 'potion' });
    players.push({ id: reg.data.joueur.id, token });
  }
  await api.end();

  const purchase = (p: typeof players[number]): [string, unknown[]] => [
    'select api.shop_acheter($1::jsonb, $2::jsonb)',
    [JSON.stringify({ key, token: p.token }), '{"code": "potion"}'],
  ];
  const minimal = (p: typeof players[number]): [string, unknown[]] => [
    `with debit as (
       update manette.balances set amount = amount - 1
       where player_id = $1 and currency = 'or' and amount >= 1
       returning game_id, player_id, amount),
     granted as (
       insert into manette.inventory (game_id, player_id, item, quantity)
       select game_id, player_id, 'potion', 1 from debit
       on conflict (player_id, item) do update set quantity = manette.inventory.quantity + excluded.quantity
       returning quantity)
     insert into manette.ledger (game_id, player_id, kind, code, delta, after, reason, ref)
     select d.game_id, d.player_id, 'monnaie', 'or', -1, d.amount, 'achat', $2::jsonb from debit d
     union all
     select d.game_id, d.player_id, 'objet', 'potion', 1, g.quantity, 'achat', $2::jsonb from debit d, granted g`,
    [p.id, '{"article": "potion", "quantite": 1}'],
  ];

  const rows: string[][] = [];
  for (const durable of [false, true]) {
    await closedLoop(dbUrl, players, { role: 'api', durable, seconds: SECONDS }, purchase); // warm-up (plans, caches)
    const a = await closedLoop(dbUrl, players, { role: 'api', durable, seconds: SECONDS }, purchase);
    const b = await closedLoop(dbUrl, players, { role: 'admin', durable, seconds: SECONDS }, minimal);
    rows.push([`api.shop_acheter (${PLAYERS} players, ${durable ? 'durable' : 'commits not flushed'})`,
      a.toFixed(0), b.toFixed(0), (a / b).toFixed(2)]);
  }

  // What both loops wrote holds the invariant: every balance and inventory line equals its ledger.
  const check = new pg.Client({ connectionString: dbUrl });
  await check.connect();
  const { rows: differ } = await check.query(`
    with stored as (
      select player_id, 'monnaie' as kind, currency as code, amount from manette.balances
      union all select player_id, 'objet', item, quantity from manette.inventory),
    sums as (select player_id, kind, code, sum(delta) as total from manette.ledger group by 1, 2, 3)
    select s.* from stored s left join sums l using (player_id, kind, code) where s.amount <> coalesce(l.total, 0)`);
  await check.end();
  if (differ.length) throw new Error(`balances differ from their ledger: ${JSON.stringify(differ)}`);

  const widths = [0, 1, 2, 3].map((i) => Math.max(...[['path', 'purchases/s', 'limit/s', 'ratio'], ...rows].map((r) => r[i]!.length)));
  for (const r of [['path', 'purchases/s', 'limit/s', 'ratio'], ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  console.log(`load average during the run: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await pooler.stop();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
