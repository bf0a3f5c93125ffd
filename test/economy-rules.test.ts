// A match's rule function grants and debits through its result's `economie` (docs/economy.md,
// "One writer"), over real HTTP: a debit the player cannot pay refuses the action (409
// action_refusee, reason quantite_insuffisante, nothing written), a grant arrives in the wallet
// and in GET /economie/historique with raison `regles` and ref {partie_id, numero}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;

const RULES_SQL = `
create schema jeu_eco;
create function jeu_eco.regles(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language plpgsql set search_path = '' as $$
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', jsonb_build_object('coups', 0));
  elsif action = 'boire' then
    return jsonb_build_object('numero_tour', manette.partie_next_turn(partie),
      'economie', jsonb_build_array(jsonb_build_object('joueur_id', joueur_id, 'objet', 'potion', 'delta', -1)));
  elsif action = 'gagner' then
    return jsonb_build_object('statut', 'terminee', 'gagnant_id', joueur_id, 'tour_joueur', null,
      'economie', jsonb_build_array(jsonb_build_object('joueur_id', joueur_id, 'monnaie', 'or', 'delta', 50)));
  end if;
  perform manette.refuse('action_inconnue');
end
$$;
grant usage on schema jeu_eco to manette_rules;
grant execute on function jeu_eco.regles(jsonb, uuid, text, jsonb) to manette_rules;
`;

beforeAll(async () => {
  app = await startTestApp();
  await app.sql(RULES_SQL);
  api = client(app.baseUrl, await app.applyGame({
    jeu: 'eco-regles', nom: 'Économie des règles',
    monnaies: { or: { nom: 'Or' } },
    objets: { potion: { nom: 'Potion' } },
    modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'jeu_eco.regles', elo_ecart_initial: 10000 } },
  }));
});
afterAll(async () => { await app?.close(); });

describe('economie in a rule function’s result', () => {
  it('refuses the action on a debit beyond the balance, and grants through the ledger', async () => {
    const players = [];
    for (const pseudo of ['er_un', 'er_deux']) {
      const r = await api.register(pseudo);
      players.push({ token: r.token as string, id: r.data.joueur.id as string });
    }
    let joined: any;
    for (const p of players) joined = (await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: p.token })).body;
    expect(joined.status).toBe('matched');
    const partie_id = joined.partie_id ?? joined.partie?.id;
    expect(typeof partie_id).toBe('string');
    const me = players[0]!;

    const refused = await api.post('/match/action', { partie_id, action: 'boire' }, { token: me.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ ok: false, error: 'action_refusee', reason: 'quantite_insuffisante' });
    expect(refused.body.message).toMatch(/enough|assez/);
    expect(await app.sql('select count(*)::int as n from manette.match_actions where match_id = $1', [partie_id])).toEqual([{ n: 0 }]);
    expect(await app.sql('select count(*)::int as n from manette.ledger l join manette.games g on g.id = l.game_id where g.slug = $1', ['eco-regles']))
      .toEqual([{ n: 0 }]);
    expect((await api.get(`/match/state?partie_id=${partie_id}`, { token: me.token })).body.partie.numero_tour).toBe(1);

    const won = await api.post('/match/action', { partie_id, action: 'gagner' }, { token: me.token });
    expect(won.status).toBe(200);
    expect(won.body.partie.statut).toBe('terminee');
    expect(won.body.partie.etat_plateau).toEqual({ coups: 0 });

    const wallet = await api.get('/economie/portefeuille', { token: me.token });
    expect(wallet.body.data).toEqual([{ code: 'or', nom: 'Or', solde: 50, max: null }]);
    const history = await api.get('/economie/historique', { token: me.token });
    expect(history.status).toBe(200);
    expect(history.body.data.mouvements).toHaveLength(1);
    expect(history.body.data.mouvements[0]).toMatchObject({ type: 'monnaie', code: 'or', delta: 50, apres: 50, raison: 'regles',
      ref: { partie_id, numero: 1 } });
    const other = await api.get('/economie/portefeuille', { token: players[1]!.token });
    expect(other.body.data[0].solde).toBe(0);
  });
});
