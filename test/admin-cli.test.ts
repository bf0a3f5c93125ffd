// The admin commands (docs/admin.md) as a studio runs them: the real `manette` CLI in a
// child process on a DATABASE_URL, and the real façade on the same database for what the
// API sees afterwards (imported rows, a revoked key, revoked sessions, a match's actions).
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { runManette, runManetteJson, cliTimeout } from './support/manette-cli.js';

const FR = 'fr_FR.UTF-8';
const EN = 'en_US.UTF-8';

let app: TestApp;
let dir: string;

/** The real CLI on the test database, in the given locale. */
const cli = (args: string[], lang = FR) => runManette(args, app.databaseUrl, lang);
const cliJson = (args: string[], lang = FR) => runManetteJson(args, app.databaseUrl, lang);

async function file(name: string, content: string): Promise<string> {
  const f = path.join(dir, name);
  await writeFile(f, content);
  return f;
}

const TABLES = {
  catalogue: {
    colonnes: {
      nom: { type: 'text', requis: true }, prix: { type: 'integer' }, poids: { type: 'number' },
      actif: { type: 'boolean' }, meta: { type: 'json' }, sortie: { type: 'timestamp' },
    },
    lecture: 'public', ecriture: 'serveur',
  },
  notes: { colonnes: { texte: { type: 'text', requis: true }, rang: { type: 'integer' } }, lecture: 'public', ecriture: 'joueurs' },
};
let tablesKey: string;

beforeAll(async () => {
  app = await startTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'manette-admin-'));
  tablesKey = await app.applyGame({ jeu: 'adm-tables', nom: 'Tables', tables: TABLES });
  await app.applyGame({ jeu: 'adm-other', nom: 'Other', tables: { autre: TABLES.notes } });
});
afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('manette import', () => {
  const api = () => client(app.baseUrl, tablesKey);
  const count = async (table: string) => (await app.sql(`select count(*)::int as n from manette.table_rows r
    join manette.data_tables t on t.id = r.table_id join manette.games g on g.id = t.game_id
    where g.slug = 'adm-tables' and t.name = $1`, [table]))[0]!.n as number;

  it('imports a JSON array into a server table; the API then serves the rows in the file’s order', async () => {
    const f = await file('catalogue.json', JSON.stringify([
      { nom: 'Épée', prix: 120, sortie: '2025-01-31T12:00:00+02:00' },
      { nom: 'Bouclier', prix: 80, meta: { rarete: 'rare' }, poids: null },
    ]));
    const r = await cli(['import', 'adm-tables', 'catalogue', f]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.trim()).toBe('2 lignes importées dans la table catalogue du jeu adm-tables.');

    const listed = await api().get('/tables/catalogue');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((row: any) => [row.joueur_id, row.donnees])).toEqual([
      [null, { nom: 'Épée', prix: 120, sortie: '2025-01-31T10:00:00.000Z' }],
      [null, { nom: 'Bouclier', prix: 80, meta: { rarete: 'rare' } }],
    ]);
  });

  it('--json gives the ids, in the file’s order; a table open to players takes rows without owner too', async () => {
    const f = await file('notes.json', JSON.stringify([{ texte: 'un', rang: 1 }, { texte: 'deux', rang: 2 }, { texte: 'trois' }]));
    const r = await cliJson(['import', 'adm-tables', 'notes', f]);
    expect(r.code).toBe(0);
    expect(r.body).toEqual({ ok: true, data: { jeu: 'adm-tables', table: 'notes', importees: 3, inserees: 3, mises_a_jour: 0, supprimees: 0,
      ids: expect.any(Array) } });
    const listed = await api().get('/tables/notes');
    expect(listed.body.data.map((row: any) => row.id)).toEqual(r.body.data.ids);
    expect(listed.body.data.every((row: any) => row.joueur_id === null)).toBe(true);
    // Equality filters find imported rows (their filter keys are written with them).
    expect((await api().get('/tables/notes?texte=deux')).body.data.map((row: any) => row.donnees)).toEqual([{ texte: 'deux', rang: 2 }]);
  });

  it('imports a CSV file: cells typed by their column, quotes and commas kept, empty cells absent', async () => {
    const before = await count('catalogue');
    const f = await file('catalogue.csv', [
      'nom,prix,poids,actif,meta,sortie',
      '"Arc, ""long""",95,1.5,true,"{""rarete"": ""epique"", ""tags"": [1, 2]}",2025-02-01T09:30:00Z',
      '',
      'Dague,12,,FALSE,"""simple""",',
      '"Hache',
      'double",40,-2.5e1,false,[],2025-03-01T00:00:00.5+01:00',
    ].join('\r\n') + '\r\n');
    const r = await cliJson(['import', 'adm-tables', 'catalogue', f]);
    expect(r.body).toMatchObject({ ok: true, data: { importees: 3 } });
    const rows = await api().get('/tables/catalogue?order_by=nom');
    const byName = Object.fromEntries(rows.body.data.map((row: any) => [row.donnees.nom, row.donnees]));
    expect(byName['Arc, "long"']).toEqual({ nom: 'Arc, "long"', prix: 95, poids: 1.5, actif: true, meta: { rarete: 'epique', tags: [1, 2] }, sortie: '2025-02-01T09:30:00.000Z' });
    expect(byName.Dague).toEqual({ nom: 'Dague', prix: 12, actif: false, meta: 'simple' });
    expect(byName['Hache\r\ndouble']).toEqual({ nom: 'Hache\r\ndouble', prix: 40, poids: -25, actif: false, meta: [], sortie: '2025-02-28T23:00:00.500Z' });
    expect(await count('catalogue')).toBe(before + 3);
    // Typed values filter and sort like the API's own rows.
    expect((await api().get('/tables/catalogue?actif=false&order_by=prix')).body.data.map((row: any) => row.donnees.nom))
      .toEqual(['Dague', 'Hache\r\ndouble']);
  });

  it('--format csv reads a file whatever its extension', async () => {
    const f = await file('notes.txt', 'texte,rang\nformat,7\n');
    const r = await cli(['import', 'adm-tables', 'notes', f, '--format', 'csv']);
    expect(r).toMatchObject({ code: 0, stdout: '1 ligne importée dans la table notes du jeu adm-tables.\n' });
  });

  it('a bad row: nothing is written, and the error names every bad row and column (French)', async () => {
    const before = await count('catalogue');
    const f = await file('bad.json', JSON.stringify([{ nom: 'ok', prix: 1 }, { nom: 'x', prix: 'beaucoup' }, { prix: 2.5, couleur: 'rouge' }, 'pas un objet']));
    const r = await cli(['import', 'adm-tables', 'catalogue', f]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      'Lignes invalides : rien n’a été importé.',
      '  lignes[2].donnees.prix : entier attendu',
      '  lignes[3].donnees.couleur : colonne inconnue',
      '  lignes[3].donnees.prix : entier attendu',
      '  lignes[3].donnees.nom : colonne obligatoire manquante',
      '  lignes[4].donnees : objet attendu',
    ]);
    expect(await count('catalogue')).toBe(before);
  });

  it('a bad CSV row is named by its line in the file; in English with --json', async () => {
    const before = await count('catalogue');
    const f = await file('bad.csv', 'nom,prix,actif,meta,sortie\nok,1,true,{},\n\n"deux\nlignes",1.5,oui,{pas json,hier\n,3,,,\n');
    const r = await cliJson(['import', 'adm-tables', 'catalogue', f], EN);
    expect(r.code).toBe(1);
    expect(r.body).toEqual({
      ok: false, error: 'validation_failed', message: 'Invalid rows: nothing was imported.',
      details: [
        { champ: 'lignes[4].donnees.meta', message: 'invalid value for a json column' },
        { champ: 'lignes[4].donnees.actif', message: 'boolean expected' },
        { champ: 'lignes[4].donnees.prix', message: 'integer expected' },
        { champ: 'lignes[4].donnees.sortie', message: 'ISO 8601 date with a time zone expected (e.g. 2025-01-31T12:00:00Z)' },
        { champ: 'lignes[6].donnees.nom', message: 'required column missing' },
      ],
    });
    expect(r.stderr).toContain('Invalid rows: nothing was imported.\n  lignes[4].donnees.meta : invalid value for a json column');
    expect(await count('catalogue')).toBe(before);
  });

  it('an unknown table or game, or a table of another game', async () => {
    const f = await file('one.json', '[{"texte": "x"}]');
    const [table, other, game, gameJson] = await Promise.all([
      cli(['import', 'adm-tables', 'inconnue', f]),
      cliJson(['import', 'adm-tables', 'autre', f]),
      cli(['import', 'nope', 'notes', f], EN),
      cliJson(['import', 'nope', 'notes', f]),
    ]);
    expect(table).toMatchObject({ code: 1, stdout: '', stderr: 'Table introuvable.\n' });
    expect(other.body).toEqual({ ok: false, error: 'table_not_found', message: 'Table introuvable.' });
    expect(game).toMatchObject({ code: 1, stderr: 'Game not found.\n' });
    expect(gameJson.body).toMatchObject({ ok: false, error: 'game_not_found' });
  });

  it('refuses files it cannot read before any database work: empty, wrong format, not JSON, no rows, too big', async () => {
    const bad = async (name: string, content: string, message: string, extra: string[] = []) => {
      const f = await file(name, content);
      const r = await cli(['import', 'adm-tables', 'notes', f, ...extra]);
      expect(r.code, name).toBe(1);
      expect(r.stderr.trim(), name).toBe(message.replace('{f}', f));
    };
    await Promise.all([
      bad('vide.json', '', '{f} : fichier vide'),
      bad('vide.csv', '\n\n', '{f} : fichier vide'),
      bad('vide2.json', '[]', '{f} : aucune ligne à importer'),
      bad('entete.csv', 'texte,rang\n', '{f} : aucune ligne à importer'),
      bad('notes.xml', '<a/>', '{f} : format inconnu, précise --format json ou --format csv'),
      bad('notes2.json', '[]', 'format inconnu « xml » : json ou csv attendu', ['--format', 'xml']),
      bad('objet.json', '{"texte": "x"}', '{f} : un tableau JSON d’objets est attendu'),
      bad('double.csv', 'texte,texte\na,b\n', '{f} : colonne « texte » en double dans l’en-tête'),
      bad('sansnom.csv', 'texte,\na,b\n', '{f} : la colonne 2 de l’en-tête n’a pas de nom'),
    ]);
    const many = await file('many.csv', 'texte\n' + 'x\n'.repeat(100_001));
    const huge = path.join(dir, 'huge.json');
    await writeFile(huge, '[');
    await truncate(huge, 50 * 1024 * 1024 + 1);
    const [notJson, ragged, absent, tooMany, tooBig, emptyJson] = await Promise.all([
      cli(['import', 'adm-tables', 'notes', await file('casse.json', '[{"texte": ')]),
      cli(['import', 'adm-tables', 'notes', await file('bancal.csv', 'texte,rang\na,1\nb,2,3\n')]),
      cli(['import', 'adm-tables', 'notes', path.join(dir, 'absent.json')]),
      cli(['import', 'adm-tables', 'notes', many]),
      cli(['import', 'adm-tables', 'notes', huge], EN),
      cliJson(['import', 'adm-tables', 'notes', await file('vide3.json', ' ')], EN),
    ]);
    expect(notJson).toMatchObject({ code: 1, stderr: expect.stringMatching(/casse\.json n’est pas du JSON valide \(fin du fichier atteinte trop tôt\)/) });
    expect(ragged).toMatchObject({ code: 1, stderr: expect.stringMatching(/bancal\.csv : CSV invalide ligne 3 /) });
    expect(absent).toMatchObject({ code: 1, stderr: `fichier introuvable ou illisible : ${path.join(dir, 'absent.json')}\n` });
    expect(tooMany).toMatchObject({ code: 1, stderr: `${many} : 100001 lignes, 100 000 au plus par import\n` });
    expect(tooBig).toMatchObject({ code: 1, stderr: `${huge}: file larger than 50 MB; split it into several imports\n` });
    expect(emptyJson.body).toMatchObject({ ok: false, error: 'invalid_input', message: expect.stringMatching(/: empty file$/) });
    expect(await count('notes')).toBe(4);
  }, cliTimeout(15));
});

describe('manette keys', () => {
  let first: string;
  let gameFile: string;
  const works = async (key: string) => (await client(app.baseUrl, key).get('/realtime/config')).status;

  beforeAll(async () => {
    gameFile = await file('adm-keys.json', JSON.stringify({ jeu: 'adm-keys', nom: 'Keys' }));
    first = await app.applyGame({ jeu: 'adm-keys', nom: 'Keys' });
  });
  /** `manette apply` as a studio runs it: its last line is {"ok", "jeu", "api_key"}. */
  const applyKey = async () => {
    const r = await cli(['apply', gameFile]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout.trim().split('\n').pop()!).api_key as string;
  };

  it('lists the game’s key', async () => {
    const r = await cli(['keys', 'list', 'adm-keys']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^CLÉ +CRÉÉE LE +RÉVOQUÉE LE +ACTIVE$/);
    expect(lines[1]).toMatch(new RegExp(`^${first} +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +— +oui$`));
    expect(lines).toHaveLength(2);
    const json = await cliJson(['keys', 'list', 'adm-keys']);
    expect(json.body).toEqual({ ok: true, data: { jeu: 'adm-keys', cles: [{ cle: first, cree_le: expect.any(String), revoquee_le: null, active: true }] } });
  });

  it('refuses to revoke the last active key, which keeps working', async () => {
    const r = await cli(['keys', 'revoke', 'adm-keys', first]);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr.trim()).toBe('C’est la dernière clé active du jeu : crées-en une nouvelle d’abord (manette keys create <jeu>).');
    expect((await cliJson(['keys', 'revoke', 'adm-keys', first], EN)).body).toEqual({
      ok: false, error: 'last_active_key', message: 'This is the game’s last active key: create a new one first (manette keys create <game>).',
    });
    expect(await works(first)).toBe(200);
  });

  it('rotation: create a key (both work), revoke the old one (401 invalid_key at once), apply prints the new one', async () => {
    const created = await cli(['keys', 'create', 'adm-keys']);
    expect(created.code).toBe(0);
    const second = /^Nouvelle clé du jeu adm-keys : (sk_live_[0-9A-Za-z]{40})$/m.exec(created.stdout)![1]!;
    expect(created.stdout).toContain('Clés actives : 2.');
    expect(await works(first)).toBe(200);
    expect(await works(second)).toBe(200);
    expect(await applyKey()).toBe(first); // the oldest active key, until it is revoked

    const listed = await cli(['keys', 'list', 'adm-keys'], EN);
    expect(listed.stdout).toMatch(/^KEY +CREATED +REVOKED +ACTIVE\n/);
    expect(listed.stdout).toContain('2 active keys; `manette apply` prints the oldest.');

    const revoked = await cli(['keys', 'revoke', 'adm-keys', first]);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.stdout).toBe(`Clé révoquée : ${first}\nL’API la refuse dès maintenant (401 invalid_key). Clés actives restantes : 1.\n`);
    const refused = await client(app.baseUrl, first).get('/realtime/config');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ ok: false, error: 'invalid_key' });
    expect(await works(second)).toBe(200);
    expect(await applyKey()).toBe(second);

    const json = await cliJson(['keys', 'list', 'adm-keys']);
    expect(json.body.data.cles.map((k: any) => [k.cle, k.active, k.revoquee_le === null])).toEqual([[first, false, false], [second, true, true]]);

    // Revoking it again: success, nothing changes.
    const again = await cli(['keys', 'revoke', 'adm-keys', first]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Cette clé était déjà révoquée \(le \d{4}-[\d-]+T[\d:.]+Z\) : rien n’a changé\.\n$/);
    expect((await cliJson(['keys', 'revoke', 'adm-keys', first])).body)
      .toEqual({ ok: true, data: { jeu: 'adm-keys', cle: first, revoquee_le: json.body.data.cles[0].revoquee_le, deja_revoquee: true, actives: 1 } });
    // And the new one is now the last active key.
    expect((await cliJson(['keys', 'revoke', 'adm-keys', second])).body.error).toBe('last_active_key');
  }, cliTimeout(9));

  it('two revokes at once of a game\'s two keys: the second waits for the first, then is refused; one key is left', async () => {
    await app.applyGame({ jeu: 'adm-race', nom: 'Race' });
    const [{ key: oldKey }] = await app.sql<{ key: string }>(
      `select k.key from manette.api_keys k join manette.games g on g.id = k.game_id where g.slug = 'adm-race'`) as [{ key: string }];
    const newKey = (await app.sql<{ r: { cle: string } }>(`select manette_admin.keys_create('adm-race', $1) as r`, [`sk_live_RACE${'x'.repeat(32)}`]))[0]!.r.cle;
    // Two people at two terminals: the first revoke's transaction is still open when the second starts.
    const [a, b] = [new pg.Client({ connectionString: app.databaseUrl }), new pg.Client({ connectionString: app.databaseUrl })];
    await Promise.all([a.connect(), b.connect()]);
    try {
      await a.query('begin');
      await a.query(`select manette_admin.keys_revoke('adm-race', $1)`, [oldKey]);
      let settled = false;
      const second = b.query(`select manette_admin.keys_revoke('adm-race', $1)`, [newKey]).finally(() => { settled = true; });
      second.catch(() => {});
      await new Promise((r) => setTimeout(r, 500));
      expect(settled).toBe(false); // it waits on the game's row
      await a.query('commit');
      await expect(second).rejects.toThrow('last_active_key');
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
    expect(await app.sql(`select k.key from manette.api_keys k join manette.games g on g.id = k.game_id
      where g.slug = 'adm-race' and k.revoked_at is null`)).toEqual([{ key: newKey }]);
  });

  it('an unknown key, a key of another game, an unknown game', async () => {
    const [unknown, other, game, create] = await Promise.all([
      cli(['keys', 'revoke', 'adm-keys', 'sk_live_inconnue']),
      cliJson(['keys', 'revoke', 'adm-keys', tablesKey], EN),
      cli(['keys', 'list', 'nope']),
      cliJson(['keys', 'create', 'nope']),
    ]);
    expect(unknown).toMatchObject({ code: 1, stderr: 'Clé d’API introuvable pour ce jeu.\n' });
    expect(other.body).toEqual({ ok: false, error: 'key_not_found', message: 'API key not found for this game.' });
    expect(await works(tablesKey)).toBe(200);
    expect(game).toMatchObject({ code: 1, stderr: 'Jeu introuvable.\n' });
    expect(create.body).toMatchObject({ ok: false, error: 'game_not_found' });
  });
});

// Players and matches on one game: a match formed through matchmaking, moves through the API.
describe('manette players and manette match', () => {
  let api: ReturnType<typeof client>;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };
  let matchId: string;
  let code: string;

  beforeAll(async () => {
    api = client(app.baseUrl, await app.applyGame({
      jeu: 'adm-play', nom: 'Play', modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
    }));
    const a = await api.register('Alice', { email: 'Alice@Example.test', pays: 'fr' });
    const b = await api.register('Bob');
    alice = { id: a.data.joueur.id, token: a.token };
    bob = { id: b.data.joueur.id, token: b.token };
    // A second session for Alice.
    const login = await api.post('/players/login', { identifiant: 'alice', password: 'motdepasse-solide' });
    expect(login.status).toBe(200);
  });

  it('players find: by pseudo in another case, by e-mail, by id; human and --json', async () => {
    const r = await cli(['players', 'find', 'adm-play', 'aLICE']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const fields = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split(/ +: /) as [string, string]));
    expect(fields).toEqual({
      id: alice.id, pseudo: 'Alice', 'e-mail': 'Alice@Example.test', pays: 'FR', 'inscrit le': expect.stringMatching(/Z$/),
      invité: 'non', suspendu: '—', 'supprimé le': '—',
      'sessions actives': '2', 'dernière utilisation': expect.stringMatching(/Z$/), 'partie en cours': '—', parties: '0',
    });
    const en = await cli(['players', 'find', 'adm-play', 'ALICE@example.test'], EN);
    expect(en.stdout).toMatch(/^id {16}: /);
    expect(en.stdout).toContain('active sessions   : 2\n');
    expect(en.stdout).toContain('match in progress : —\n');
    const json = await cliJson(['players', 'find', 'adm-play', alice.id]);
    expect(json.body).toEqual({
      ok: true,
      data: {
        id: alice.id, pseudo: 'Alice', email: 'Alice@Example.test', pays: 'FR', cree_le: expect.any(String),
        invite: false, suspension: null, supprime_le: null,
        sessions_actives: 2, derniere_utilisation: expect.any(String), partie_en_cours: null, parties: 0,
      },
    });
  });

  it('players find: an unknown player, a player of another game', async () => {
    const [pseudo, email, other, id, game] = await Promise.all([
      cli(['players', 'find', 'adm-play', 'personne']),
      cliJson(['players', 'find', 'adm-play', 'personne@example.test'], EN),
      cliJson(['players', 'find', 'adm-tables', alice.id]),
      cliJson(['players', 'revoke-sessions', 'adm-play', '00000000-0000-4000-8000-000000000000']),
      cliJson(['players', 'find', 'nope', 'alice']),
    ]);
    expect(pseudo).toMatchObject({ code: 1, stdout: '', stderr: 'Joueur introuvable.\n' });
    expect(email.body).toEqual({ ok: false, error: 'player_not_found', message: 'Player not found.' });
    expect(other.body.error).toBe('player_not_found');
    expect(id).toMatchObject({ code: 1, body: { ok: false, error: 'player_not_found' } });
    expect(game.body.error).toBe('game_not_found');
  });

  it('match show: by id and by room code, with participants and every action played through the API', async () => {
    await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: alice.token });
    const joined = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: bob.token });
    expect(joined.body.status).toBe('matched');
    matchId = joined.body.partie_id;
    const [x, o] = joined.body.participants[0].joueur_id === alice.id ? [alice, bob] : [bob, alice];
    for (const [p, c] of [[x, 4], [o, 0], [x, 8]] as const) {
      const played = await api.post('/match/action', { partie_id: matchId, action: 'jouer', donnees: { case: c } }, { token: p.token });
      expect(played.status, JSON.stringify(played.body)).toBe(200);
      code = played.body.partie.code_salon;
    }
    const pseudo = (p: { id: string }) => (p.id === alice.id ? 'Alice' : 'Bob');

    const json = await cliJson(['match', 'show', 'adm-play', matchId]);
    expect(json.code).toBe(0);
    expect(json.body.data).toMatchObject({
      id: matchId, mode_jeu: '1v1', regles: 'morpion', statut: 'en_cours', tour_joueur: o.id, numero_tour: 4, code_salon: code,
      gagnant_id: null, gagnant_equipe: null, termine_le: null,
      participants: [{ joueur_id: x.id, pseudo: pseudo(x), equipe: 1, place: 1, elo: 1000 }, { joueur_id: o.id, pseudo: pseudo(o), equipe: 2, place: 2, elo: 1000 }],
    });
    expect(json.body.data.actions.map((a: any) => ({ ...a, joue_le: typeof a.joue_le }))).toEqual([
      { seq: 1, joueur_id: x.id, pseudo: pseudo(x), action: 'jouer', donnees: { case: 4 }, numero_tour: 1, joue_le: 'string' },
      { seq: 2, joueur_id: o.id, pseudo: pseudo(o), action: 'jouer', donnees: { case: 0 }, numero_tour: 2, joue_le: 'string' },
      { seq: 3, joueur_id: x.id, pseudo: pseudo(x), action: 'jouer', donnees: { case: 8 }, numero_tour: 3, joue_le: 'string' },
    ]);

    const human = await cli(['match', 'show', 'adm-play', code.toLowerCase()]);
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toContain(`partie      : ${matchId}\n`);
    expect(human.stdout).toContain('mode        : 1v1 (règles morpion)\n');
    expect(human.stdout).toContain(`tour        : 4 (${pseudo(o)})\n`);
    expect(human.stdout).toContain('statut      : en cours (en_cours)\n');
    // In English, the status in English (the wire value beside it).
    expect((await cli(['match', 'show', 'adm-play', code], EN)).stdout).toMatch(/^status +: in progress \(en_cours\)$/m);
    expect(human.stdout).toContain(`code salon  : ${code}\n`);
    expect(human.stdout).toContain('Participants (2)\nPLACE  ÉQUIPE  PSEUDO');
    const seatLines = human.stdout.split('Participants (2)\n')[1]!.split('\n').slice(0, 3);
    expect(seatLines[0]).toMatch(/^PLACE +ÉQUIPE +PSEUDO +ELO +ID$/);
    expect(seatLines.slice(1).map((l) => l.split(/ {2,}/).slice(0, 4))).toEqual([['1', '1', pseudo(x), '1000'], ['2', '2', pseudo(o), '1000']]);
    const actions = human.stdout.split('Actions (3)\n')[1]!.trim().split('\n');
    expect(actions[0]).toMatch(/^N° +TOUR +JOUEUR +ACTION +JOUÉE LE +DONNÉES$/);
    expect(actions.slice(1).map((l) => l.split(/ {2,}/).filter((c, i) => i !== 4))).toEqual([
      ['1', '1', pseudo(x), 'jouer', '{"case":4}'],
      ['2', '2', pseudo(o), 'jouer', '{"case":0}'],
      ['3', '3', pseudo(x), 'jouer', '{"case":8}'],
    ]);

    // players find shows the match in progress and counts it.
    const card = (await cliJson(['players', 'find', 'adm-play', 'bob'])).body.data;
    expect(card).toMatchObject({ partie_en_cours: { id: matchId, mode_jeu: '1v1', code_salon: code }, parties: 1 });
  });

  it('match show by room code: the match in progress with that code, else the most recent one', async () => {
    // A later finished match reusing the code (codes are unique among matches in progress only).
    const [later] = await app.sql(`insert into manette.matches (game_id, mode, rules, status, room_code, created_at, ended_at)
      select game_id, mode, rules, 'terminee', room_code, now() + interval '1 minute', now() from manette.matches where id = $1
      returning id`, [matchId]);
    expect((await cliJson(['match', 'show', 'adm-play', code])).body.data.id).toBe(matchId);
    const abandon = await api.post('/match/action', { partie_id: matchId, action: 'abandonner' }, { token: alice.token });
    expect(abandon.body.partie.statut).toBe('terminee');
    const latest = await cliJson(['match', 'show', 'adm-play', code]);
    expect(latest.body.data).toMatchObject({ id: later!.id, statut: 'terminee', actions: [], participants: [] });
    const shown = await cliJson(['match', 'show', 'adm-play', matchId]);
    expect(shown.body.data).toMatchObject({ statut: 'terminee', gagnant_id: bob.id, termine_le: expect.any(String) });
    expect(shown.body.data.actions.at(-1)).toMatchObject({ seq: 4, pseudo: 'Alice', action: 'abandonner' });
    const human = await cli(['match', 'show', 'adm-play', matchId], EN);
    expect(human.stdout).toContain('winner    : Bob (team ');
    expect(human.stdout).toContain('Actions (4)\n#  TURN');
  });

  it('match show: an unknown match, a match of another game', async () => {
    const [byCode, byId, other] = await Promise.all([
      cli(['match', 'show', 'adm-play', 'ZZZZZZ']),
      cliJson(['match', 'show', 'adm-play', '00000000-0000-4000-8000-000000000000'], EN),
      cliJson(['match', 'show', 'adm-tables', matchId]),
    ]);
    expect(byCode).toMatchObject({ code: 1, stdout: '', stderr: 'Partie introuvable.\n' });
    expect(byId.body).toEqual({ ok: false, error: 'match_not_found', message: 'Match not found.' });
    expect(other.body.error).toBe('match_not_found');
  });

  it('players revoke-sessions: every token of the player gets 401 invalid_token, others keep working', async () => {
    expect((await api.get('/players/me', { token: alice.token })).status).toBe(200);
    const r = await cli(['players', 'revoke-sessions', 'adm-play', 'ALICE']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`2 session(s) révoquée(s) pour Alice (${alice.id}) : ses jetons sont refusés dès maintenant.\n`);
    const me = await api.get('/players/me', { token: alice.token });
    expect(me.status).toBe(401);
    expect(me.body).toMatchObject({ ok: false, error: 'invalid_token' });
    expect((await api.get('/players/me', { token: bob.token })).status).toBe(200);
    expect((await cliJson(['players', 'find', 'adm-play', 'alice'])).body.data.sessions_actives).toBe(0);
    expect((await cliJson(['players', 'revoke-sessions', 'adm-play', 'alice@example.test'])).body)
      .toEqual({ ok: true, data: { id: alice.id, pseudo: 'Alice', sessions_revoquees: 0 } });
    expect((await cli(['players', 'revoke-sessions', 'adm-play', 'alice'], EN)).stdout)
      .toBe(`Alice (${alice.id}) had no active session: nothing changed.\n`);
  });
});
