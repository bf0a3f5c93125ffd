// The economy (docs/economy.md, docs/api.md Economy) over real HTTP on a real database:
// the five endpoints, exactness under concurrency, idempotent purchases, isolation between
// games, old-style articles, match rewards and the support CLI (manette economy).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { runManetteJson, cliTimeout } from './support/manette-cli.js';
import { parseGameConfig } from '../api/config/game-config.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;

const GAME = {
  jeu: 'eco-a', nom: 'Économie A',
  monnaies: { or: { nom: 'Or', depart: 100, max: 1_000_000 }, gemmes: { nom: 'Gemmes' } },
  objets: { epee: { nom: 'Épée', empilable: false }, potion: { nom: 'Potion', max: 99 } },
  boutique: [
    { code: 'epee', nom: 'Épée', prix: 100, devise: 'or', contenu: { objets: { epee: 1 } } },
    { code: 'potion', nom: 'Potion', prix: 10, devise: 'or', contenu: { objets: { potion: 1 } } },
    { code: 'pack-or', nom: 'Pack d’or', prix: 5, devise: 'gemmes', contenu: { monnaies: { or: 500 } } },
    { code: 'vieux', nom: 'Ancien article', prix: 3, devise: 'pièces' },
    { code: 'sans-contenu', nom: 'Sans contenu', prix: 3, devise: 'or' },
    { code: 'ferme', nom: 'Fermé', prix: 1, devise: 'or', actif: false, contenu: { objets: { potion: 1 } } },
  ],
  modes: {
    '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion',
      recompenses: { victoire: { monnaies: { or: 50 } }, defaite: { monnaies: { or: 10 } }, nul: { monnaies: { or: 20 } } } },
  },
};
const GAME_B = {
  jeu: 'eco-b', nom: 'Économie B',
  monnaies: { pieces: { nom: 'Pièces', depart: 7 } },
  objets: { bouclier: { nom: 'Bouclier' } },
  boutique: [{ code: 'epee', nom: 'Épée de B', prix: 1, devise: 'pieces', contenu: { objets: { bouclier: 1 } } }],
};

interface Player { token: string; id: string }
let counter = 0;
async function player(c = api): Promise<Player> {
  const r = await c.register(`eco_${++counter}_${Math.random().toString(36).slice(2, 7)}`);
  return { token: r.token, id: r.data.joueur.id };
}
const sql = (text: string, values?: unknown[]) => app.sql(text, values);
const balance = async (p: Player, code: string) =>
  (await sql('select amount::int as n from manette.balances where player_id = $1 and currency = $2', [p.id, code]))[0]?.n as number | undefined;
const quantity = async (p: Player, code: string) =>
  (await sql('select quantity::int as n from manette.inventory where player_id = $1 and item = $2', [p.id, code]))[0]?.n as number | undefined;
const ledgerCount = async (p: Player) => (await sql('select count(*)::int as n from manette.ledger where player_id = $1', [p.id]))[0]!.n as number;
/** Every stored line of the player whose value differs from its ledger sum (none expected). */
const drift = async (p: Player) => sql(
  `select b.currency as code, b.amount, coalesce((select sum(l.delta) from manette.ledger l
       where l.player_id = b.player_id and l.kind = 'monnaie' and l.code = b.currency), 0) as s
   from manette.balances b where b.player_id = $1
   union all
   select v.item, v.quantity, coalesce((select sum(l.delta) from manette.ledger l
       where l.player_id = v.player_id and l.kind = 'objet' and l.code = v.item), 0)
   from manette.inventory v where v.player_id = $1`, [p.id]).then((rows) => rows.filter((r) => String(r.amount) !== String(r.s)));
/** manette_admin.economy_grant as the admin role (what the CLI runs). */
async function grant(p: Player, movements: unknown[]) {
  const db = new pg.Client({ connectionString: app.databaseUrl });
  await db.connect();
  try {
    await db.query('begin; set local role manette_admin');
    const r = await db.query("select manette_admin.economy_grant('eco-a', $1, $2::jsonb, 'test') as r", [p.id, JSON.stringify(movements)]);
    await db.query('commit');
    return r.rows[0].r;
  } finally {
    await db.end();
  }
}
const buy = (p: Player, body: unknown, key?: string) =>
  api.post('/shop/acheter', body, { token: p.token, headers: key ? { 'idempotency-key': key } : {} });
const expectError = (r: Reply, status: number, code: string) => {
  expect([r.status, r.body.ok, r.body.error], JSON.stringify(r.body)).toEqual([status, false, code]);
  expect(typeof r.body.message).toBe('string');
};

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame(GAME));
  apiB = client(app.baseUrl, await app.applyGame(GAME_B));
});
afterAll(async () => { await app?.close(); });

describe('GET /economie/portefeuille and /economie/inventaire', () => {
  it('shows every currency, a never-moved balance as its depart, without writing', async () => {
    const p = await player();
    const r = await api.get('/economie/portefeuille', { token: p.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, data: [
      { code: 'gemmes', nom: 'Gemmes', solde: 0, max: null },
      { code: 'or', nom: 'Or', solde: 100, max: 1_000_000 },
    ] });
    expect(await balance(p, 'or')).toBeUndefined();
    expect(await ledgerCount(p)).toBe(0);
    expect((await api.get('/economie/inventaire', { token: p.token })).body).toEqual({ ok: true, data: [] });
  });

  it('needs a player token', async () => {
    expectError(await api.get('/economie/portefeuille'), 401, 'missing_player');
    expectError(await api.get('/economie/inventaire'), 401, 'missing_player');
  });
});

describe('POST /shop/acheter', () => {
  it('debits, grants, writes a ledger row per movement (depart first) and answers the new state', async () => {
    const p = await player();
    const r = await buy(p, { code: 'potion', quantite: 3 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body)).toEqual(['ok', 'data']);
    expect(Object.keys(r.body.data)).toEqual(['achat', 'inventaire', 'portefeuille']);
    expect(r.body.data.achat).toEqual({ article: 'potion', quantite: 3, prix_total: 30, devise: 'or' });
    expect(r.body.data.portefeuille).toContainEqual({ code: 'or', nom: 'Or', solde: 70, max: 1_000_000 });
    expect(r.body.data.inventaire).toEqual([{ code: 'potion', nom: 'Potion', quantite: 3, empilable: true, max: 99 }]);
    const rows = await sql('select kind, code, delta::int, after::int, reason, ref from manette.ledger where player_id = $1 order by id', [p.id]);
    expect(rows).toEqual([
      { kind: 'monnaie', code: 'or', delta: 100, after: 100, reason: 'depart', ref: {} },
      { kind: 'monnaie', code: 'or', delta: -30, after: 70, reason: 'achat', ref: { article: 'potion', quantite: 3 } },
      { kind: 'objet', code: 'potion', delta: 3, after: 3, reason: 'achat', ref: { article: 'potion', quantite: 3 } },
    ]);
    expect(await drift(p)).toEqual([]);
  });

  it('refuses with the codes of the contract, changing nothing', async () => {
    const p = await player();
    expectError(await buy(p, { code: 'inconnu' }), 404, 'article_introuvable');
    expectError(await buy(p, { code: 'ferme' }), 409, 'article_inactif');
    expectError(await buy(p, { code: 'vieux' }), 409, 'article_non_achetable');
    expectError(await buy(p, { code: 'sans-contenu' }), 409, 'article_non_achetable');
    expectError(await buy(p, { code: 'pack-or' }), 409, 'solde_insuffisant');
    expectError(await buy(p, { code: 'epee', quantite: 2 }), 409, 'solde_insuffisant');
    await grant(p, [{ monnaie: 'or', delta: 500 }]);
    expect((await buy(p, { code: 'epee' })).status).toBe(200);
    const before = await ledgerCount(p);
    expectError(await buy(p, { code: 'epee' }), 409, 'limite_atteinte');   // non-stackable: one at most
    expect(await balance(p, 'or')).toBe(500);
    expect(await ledgerCount(p)).toBe(before);
    for (const body of [{}, { code: 'potion', quantite: 0 }, { code: 'potion', quantite: 101 }, { code: 'potion', quantite: 1.5 }, { code: 'a b' }, { code: 'potion', x: 1 }]) {
      expectError(await buy(p, body), 400, 'validation_failed');
    }
    expect(await ledgerCount(p)).toBe(before);
    expect(await drift(p)).toEqual([]);
  });

  it('100 concurrent purchases covered by exactly 10: 10 succeed, balance 0, 10 items, ledger = balances', async () => {
    const p = await player();
    await grant(p, [{ monnaie: 'or', delta: -100 }, { monnaie: 'gemmes', delta: 50 }]);   // or 0, gemmes 50: 10 packs
    const replies = await Promise.all(Array.from({ length: 100 }, () => buy(p, { code: 'pack-or' })));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBe(10);
    for (const r of replies.filter((x) => x.status !== 200)) expectError(r, 409, 'solde_insuffisant');
    expect(await balance(p, 'gemmes')).toBe(0);
    expect(await balance(p, 'or')).toBe(5000);
    expect(await sql("select count(*)::int as n from manette.ledger where player_id = $1 and reason = 'achat'", [p.id]))
      .toEqual([{ n: 20 }]);
    expect(await drift(p)).toEqual([]);

    const q = await player();
    await grant(q, [{ monnaie: 'or', delta: -100 }]);
    await grant(q, [{ monnaie: 'or', delta: 100 }]);   // exactly 10 potions
    const potions = await Promise.all(Array.from({ length: 100 }, () => buy(q, { code: 'potion' })));
    expect(potions.filter((r) => r.status === 200).length).toBe(10);
    expect(await balance(q, 'or')).toBe(0);
    expect(await quantity(q, 'potion')).toBe(10);
    expect(await drift(q)).toEqual([]);
  });

  it('replayed with its Idempotency-Key (answer lost, or concurrently): one purchase', async () => {
    const p = await player();
    const first = await buy(p, { code: 'potion' }, 'achat-1');
    const again = await buy(p, { code: 'potion' }, 'achat-1');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ok: true, data: {
      achat: { article: 'potion', quantite: 1, prix_total: 10, devise: 'or' },
      portefeuille: expect.any(Array), inventaire: [expect.objectContaining({ code: 'potion', quantite: 1 })] } });
    // The replay answers the first answer, in the same envelope.
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await quantity(p, 'potion')).toBe(1);
    const burst = await Promise.all(Array.from({ length: 20 }, () => buy(p, { code: 'potion' }, 'achat-2')));
    expect(burst.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of burst) expect(r.body).toEqual(burst[0]!.body);
    expect(await quantity(p, 'potion')).toBe(2);
    expect(await balance(p, 'or')).toBe(80);
    expectError(await buy(p, { code: 'potion', quantite: 2 }, 'achat-2'), 409, 'idempotency_conflict');
    expect(await drift(p)).toEqual([]);
  });
});

describe('POST /economie/utiliser and GET /economie/historique', () => {
  it('consumes, refuses more than held, and lists the ledger newest first with paging', async () => {
    const p = await player();
    await buy(p, { code: 'potion', quantite: 3 });
    const r = await api.post('/economie/utiliser', { objet: 'potion', quantite: 2 }, { token: p.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ ok: true, data: { inventaire: [{ code: 'potion', nom: 'Potion', quantite: 1, empilable: true, max: 99 }] } });
    expectError(await api.post('/economie/utiliser', { objet: 'potion', quantite: 2 }, { token: p.token }), 409, 'quantite_insuffisante');
    expectError(await api.post('/economie/utiliser', { objet: 'arc', quantite: 1 }, { token: p.token }), 404, 'objet_introuvable');
    expectError(await api.post('/economie/utiliser', { objet: 'potion', quantite: 1001 }, { token: p.token }), 400, 'validation_failed');
    expect(await quantity(p, 'potion')).toBe(1);

    const all = await api.get('/economie/historique', { token: p.token });
    expect(all.status).toBe(200);
    expect(all.body.data.mouvements.map((m: any) => [m.type, m.code, m.delta, m.apres, m.raison])).toEqual([
      ['objet', 'potion', -2, 1, 'utilisation'],
      ['objet', 'potion', 3, 3, 'achat'],
      ['monnaie', 'or', -30, 70, 'achat'],
      ['monnaie', 'or', 100, 100, 'depart'],
    ]);
    expect(Object.keys(all.body)).toEqual(['ok', 'data']);
    expect(all.body.data.suivant).toBeNull();
    const page1 = await api.get('/economie/historique?limit=3', { token: p.token });
    expect(page1.body.data.mouvements.length).toBe(3);
    const page2 = await api.get(`/economie/historique?limit=3&avant=${page1.body.data.suivant}`, { token: p.token });
    expect(page2.body).toEqual({ ok: true, data: { mouvements: [all.body.data.mouvements[3]], suivant: null } });
    expectError(await api.get('/economie/historique?limit=0', { token: p.token }), 400, 'invalid_query');
  });

  it('a use replayed with its Idempotency-Key answers the first answer, in the same envelope, consuming nothing more', async () => {
    const p = await player();
    await buy(p, { code: 'potion', quantite: 2 });
    const use = () => api.post('/economie/utiliser', { objet: 'potion', quantite: 1 }, { token: p.token, headers: { 'idempotency-key': 'utiliser-1' } });
    const first = await use();
    expect(first.body).toEqual({ ok: true, data: { inventaire: [{ code: 'potion', nom: 'Potion', quantite: 1, empilable: true, max: 99 }] } });
    expect((await use()).body).toEqual(first.body);
    expect(await quantity(p, 'potion')).toBe(1);
    expect(await drift(p)).toEqual([]);
  });
});

describe('isolation and old-style articles', () => {
  it('two games never see each other’s currencies, objects or articles', async () => {
    const a = await player();
    const b = await player(apiB);
    expect((await apiB.get('/economie/portefeuille', { token: b.token })).body.data)
      .toEqual([{ code: 'pieces', nom: 'Pièces', solde: 7, max: null }]);
    const r = await apiB.post('/shop/acheter', { code: 'epee' }, { token: b.token });
    expect(r.body.data.inventaire).toEqual([{ code: 'bouclier', nom: 'Bouclier', quantite: 1, empilable: true, max: null }]);
    expectError(await api.post('/shop/acheter', { code: 'epee' }, { token: b.token }), 401, 'invalid_token');
    expect((await api.get('/economie/portefeuille', { token: a.token })).body.data.map((c: any) => c.code)).toEqual(['gemmes', 'or']);
  });

  it('GET /shop/articles adds contenu and achetable', async () => {
    const r = await api.get('/shop/articles');
    const byCode = Object.fromEntries(r.body.data.map((x: any) => [x.code, x]));
    expect(byCode.epee).toMatchObject({ contenu: { objets: { epee: 1 } }, achetable: true });
    expect(byCode.vieux).toMatchObject({ contenu: null, achetable: false });
    expect(byCode['sans-contenu']).toMatchObject({ contenu: null, achetable: false });
  });
});

describe('match rewards', () => {
  it('a morpion won over HTTP grants victoire and defaite (reason recompense)', async () => {
    const ps = [await player(), await player()];
    let last: any;
    for (const p of ps) last = (await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: p.token })).body;
    expect(last.status).toBe('matched');
    const byId = new Map(ps.map((p) => [p.id, p]));
    const [x, o] = last.participants.map((s: any) => byId.get(s.joueur_id)!) as Player[];
    for (const [p, c] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as [Player, number][]) {
      const r = await api.post('/match/action', { partie_id: last.partie_id, action: 'jouer', donnees: { case: c } }, { token: p.token });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    expect(await balance(x!, 'or')).toBe(150);
    expect(await balance(o!, 'or')).toBe(110);
    const h = await api.get('/economie/historique?limit=1', { token: x!.token });
    expect(h.body.data.mouvements[0]).toMatchObject({ type: 'monnaie', code: 'or', delta: 50, apres: 150, raison: 'recompense',
      ref: { partie_id: last.partie_id } });
    expect(await drift(x!)).toEqual([]);
  });
});

describe('manette economy grant|revoke', () => {
  it('grants and revokes through the CLI, audited with avant/apres; refusals change nothing', async () => {
    const p = await player();
    const g = await runManetteJson(['economy', 'grant', 'eco-a', p.id, '--monnaie', 'gemmes', '12', '--objet', 'potion', '2',
      '--raison', 'geste commercial', '--json'], app.databaseUrl, 'en_US.UTF-8');
    expect(g.code, g.stderr).toBe(0);
    expect(g.body.data.portefeuille).toContainEqual({ code: 'gemmes', nom: 'Gemmes', solde: 12, max: null });
    expect(await quantity(p, 'potion')).toBe(2);
    const v = await runManetteJson(['economy', 'revoke', 'eco-a', p.id, '--monnaie', 'gemmes', '5', '--raison', 'erreur', '--json'],
      app.databaseUrl, 'en_US.UTF-8');
    expect(v.code, v.stderr).toBe(0);
    expect(await balance(p, 'gemmes')).toBe(7);
    const bad = await runManetteJson(['economy', 'revoke', 'eco-a', p.id, '--monnaie', 'gemmes', '8', '--raison', 'trop', '--json'],
      app.databaseUrl, 'en_US.UTF-8');
    expect(bad.code).not.toBe(0);
    expect(bad.body.error).toBe('solde_insuffisant');
    expect(await balance(p, 'gemmes')).toBe(7);
    const audit = await sql(`select command, details from manette.admin_audit
      where details->>'joueur_id' = $1 order by id`, [p.id]);
    expect(audit.map((a) => a.command)).toEqual(['economy grant', 'economy revoke']);
    expect(audit[1]!.details.avant.portefeuille).toContainEqual({ code: 'gemmes', nom: 'Gemmes', solde: 12, max: null });
    expect(audit[1]!.details.apres.portefeuille).toContainEqual({ code: 'gemmes', nom: 'Gemmes', solde: 7, max: null });
    expect(audit[1]!.details.raison).toBe('erreur');
    for (const args of [['--monnaie', 'gemmes', 'dix'], ['--monnaie', 'gemmes'], ['--objet', 'a b', '1'], []]) {
      const r = await runManetteJson(['economy', 'grant', 'eco-a', p.id, ...args, '--raison', 'x', '--json'], app.databaseUrl, 'en_US.UTF-8');
      expect([r.code === 0, r.body.ok, r.body.error], JSON.stringify(r.body)).toEqual([false, false, 'invalid_input']);
    }
    const unknown = await runManetteJson(['economy', 'grant', 'eco-a', p.id, '--objet', 'arc', '1', '--raison', 'x', '--json'], app.databaseUrl, 'en_US.UTF-8');
    expect(unknown.body.error).toBe('objet_introuvable');
    expect(await sql('select count(*)::int as n from manette.admin_audit where details->>\'joueur_id\' = $1', [p.id])).toEqual([{ n: 2 }]);
    expect(await balance(p, 'gemmes')).toBe(7);
    expect(await sql("select reason, ref from manette.ledger where player_id = $1 and code = 'gemmes' order by id", [p.id]))
      .toEqual([{ reason: 'support', ref: { raison: 'geste commercial' } }, { reason: 'support', ref: { raison: 'erreur' } }]);
  }, cliTimeout(8));
});

describe('the game file', () => {
  const bad = (patch: Record<string, unknown>, lang: 'fr' | 'en' = 'fr') => {
    const r = parseGameConfig({ ...GAME, ...patch }, lang);
    return r.ok ? 'ok' : r.error;
  };
  it('applies the economy, and files without it stay as written', () => {
    expect(bad({})).toBe('ok');
    const old = parseGameConfig({ jeu: 'vieux', nom: 'Vieux', boutique: [{ code: 'a', nom: 'A', prix: 2.5, devise: 'or' }] });
    expect(old.ok && (old.config as Record<string, unknown>).monnaies).toBeUndefined();
  });
  it('names an unknown code, a fractional prix in a declared currency, bad amounts (French and English)', () => {
    const arc = { boutique: [{ code: 'x', nom: 'X', prix: 1, devise: 'or', contenu: { objets: { arc: 1 } } }] };
    expect(bad(arc)).toContain('boutique.0.contenu.objets.arc: objet inconnu « arc » (il doit être déclaré dans objets)');
    expect(bad(arc, 'en')).toContain('boutique.0.contenu.objets.arc: unknown object "arc" (it must be declared in objets)');
    const rubis = { modes: { m: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', recompenses: { nul: { monnaies: { rubis: 2 } } } } } };
    expect(bad(rubis)).toContain('modes.m.recompenses.nul.monnaies.rubis: monnaie inconnue « rubis »');
    expect(bad(rubis, 'en')).toContain('unknown currency "rubis" (it must be declared in monnaies)');
    const prix = { boutique: [{ code: 'x', nom: 'X', prix: 1.5, devise: 'or', contenu: { objets: { potion: 1 } } }] };
    expect(bad(prix)).toContain('boutique.0.prix: prix entier attendu');
    expect(bad(prix, 'en')).toContain('boutique.0.prix: integer prix expected (devise "or" is a currency of the game)');
    expect(bad({ boutique: [{ code: 'x', nom: 'X', prix: 1, devise: 'or', contenu: { objets: { potion: -1 } } }] })).toContain('boutique.0.contenu.objets.potion');
    expect(bad({ boutique: [{ code: 'x', nom: 'X', prix: 1, devise: 'or', contenu: {} }] }, 'en')).toContain('at least one currency or object');
    expect(bad({ monnaies: { or: { nom: 'Or', depart: 5, max: 2 } } }, 'en')).toContain('monnaies.or.depart: depart must be less than or equal to max');
  });
});
