// `manette import --replace | --cle <colonne>` and `manette rows delete` (issue 19, docs/admin.md):
// the real CLI in a child process on a DATABASE_URL, the real façade on the same database
// for what the API serves afterwards, and the audit trail they leave.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { runManette, runManetteJson } from './support/manette-cli.js';

const FR = 'fr_FR.UTF-8';
const EN = 'en_US.UTF-8';

let app: TestApp;
let dir: string;
let key: string;

/** The real CLI on the test database, in the given locale. */
const cli = (args: string[], lang = FR) => runManette(args, app.databaseUrl, lang);
const cliJson = (args: string[], lang = FR) => runManetteJson(args, app.databaseUrl, lang);

let n = 0;
async function file(content: string, ext = 'csv'): Promise<string> {
  const f = path.join(dir, `f${++n}.${ext}`);
  await writeFile(f, content);
  return f;
}

const TABLES = {
  catalogue: { colonnes: { nom: { type: 'text', requis: true }, prix: { type: 'integer' } }, lecture: 'public', ecriture: 'serveur' },
  objets: { colonnes: { code: { type: 'integer' }, nom: { type: 'text' } }, lecture: 'public', ecriture: 'serveur' },
  notes: { colonnes: { texte: { type: 'text', requis: true } }, lecture: 'public', ecriture: 'joueurs' },
};

beforeAll(async () => {
  app = await startTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'manette-rows-'));
  key = await app.applyGame({ jeu: 'rows', nom: 'Rows', tables: TABLES });
});
afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Row = { id: string; joueur_id: string | null; donnees: Record<string, unknown>; cree_le: string; maj_le: string };
const list = async (table: string) =>
  (await client(app.baseUrl, key).get(`/tables/${table}?limit=200`)).body.data as Row[];
const audit = async () => (await app.sql(`select a.command, a.details from manette.admin_audit a
  join manette.games g on g.id = a.game_id where g.slug = 'rows' order by a.id`)).map((r) => ({ command: r.command, ...r.details }));

const CATALOGUE = 'nom,prix\nÉpée,120\nBouclier,80\nArc,95\n';

describe('manette import --replace', () => {
  it('run twice gives the file’s 3 rows, not 6; plain import still adds', async () => {
    const f = await file(CATALOGUE);
    for (let i = 0; i < 2; i++) {
      const r = await cliJson(['import', 'rows', 'catalogue', f, '--replace']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.body.data).toMatchObject({ importees: 3, inserees: 3, mises_a_jour: 0, supprimees: i === 0 ? 0 : 3 });
    }
    expect((await list('catalogue')).map((r) => r.donnees)).toEqual([
      { nom: 'Épée', prix: 120 }, { nom: 'Bouclier', prix: 80 }, { nom: 'Arc', prix: 95 }]);
    const text = await cli(['import', 'rows', 'catalogue', f, '--replace']);
    expect(text).toMatchObject({ code: 0, stdout: '3 lignes importées dans la table catalogue du jeu rows. (3 ancienne(s) ligne(s) remplacée(s))\n' });
    expect((await cli(['import', 'rows', 'catalogue', f])).code).toBe(0);
    expect(await list('catalogue')).toHaveLength(6);
  });

  it('a bad row leaves the table exactly as it was', async () => {
    await cli(['import', 'rows', 'catalogue', await file(CATALOGUE), '--replace']);
    const before = await list('catalogue');
    const r = await cliJson(['import', 'rows', 'catalogue', await file('nom,prix\nHache,10\nMasse,lourd\n'), '--replace']);
    expect([r.code, r.body.error, r.body.details]).toEqual([1, 'validation_failed',
      [{ champ: 'lignes[3].donnees.prix', message: 'entier attendu' }]]);
    expect(await list('catalogue')).toEqual(before);
  });

  it('in a joueurs table, replaces the rows without owner and keeps the players’ rows', async () => {
    const api = client(app.baseUrl, key);
    const s = await api.register('alice');
    expect((await api.post('/tables/notes', { donnees: { texte: 'à moi' } }, { token: s.token })).status).toBe(201);
    const f = await file('texte\nun\ndeux\n');
    await cli(['import', 'rows', 'notes', f]);
    const r = await cliJson(['import', 'rows', 'notes', await file('texte\ntrois\n'), '--replace']);
    expect(r.body.data).toMatchObject({ importees: 1, supprimees: 2 });
    expect((await list('notes')).map((x) => [x.donnees.texte, x.joueur_id])).toEqual([['à moi', s.data.joueur.id], ['trois', null]]);
  });
});

describe('manette import --cle <colonne>', () => {
  it('updates the rows whose key matches (same id, new donnees), inserts the others', async () => {
    const first = await cliJson(['import', 'rows', 'objets', await file('code,nom\n1,épée\n2,arc\n')]);
    expect(first.code, first.stderr).toBe(0);
    const [epee, arc] = first.body.data.ids as string[];
    const r = await cliJson(['import', 'rows', 'objets', await file(JSON.stringify([{ code: 2, nom: 'arc long' }, { code: 3, nom: 'hache' }]), 'json'),
      '--cle', 'code']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.body.data).toMatchObject({ importees: 2, inserees: 1, mises_a_jour: 1, supprimees: 0 });
    expect(r.body.data.ids[0]).toBe(arc);
    const rows = await list('objets');
    expect(rows.map((x) => [x.id === epee ? 'epee' : x.id === arc ? 'arc' : 'new', x.donnees])).toEqual([
      ['epee', { code: 1, nom: 'épée' }], ['arc', { code: 2, nom: 'arc long' }], ['new', { code: 3, nom: 'hache' }]]);
    expect(rows[1]!.maj_le > rows[1]!.cree_le).toBe(true);
    // The same file again changes values, not the number of rows.
    const again = await cli(['import', 'rows', 'objets', await file('code,nom\n2,arc court\n3,hache\n'), '--cle', 'code'], EN);
    expect(again).toMatchObject({ code: 0, stdout: '2 rows imported into table objets of game rows. (0 inserted, 2 updated)\n' });
    expect(await list('objets')).toHaveLength(3);
  });

  it('refuses, writing nothing: a row without the key, a key twice in the file, a key held by several rows, an undeclared column, with --replace', async () => {
    const before = await list('objets');
    const missing = await cliJson(['import', 'rows', 'objets', await file('code,nom\n4,a\n,b\n4,c\n'), '--cle', 'code']);
    expect([missing.code, missing.body.error, missing.body.details]).toEqual([1, 'validation_failed', [
      { champ: 'lignes[3].donnees.code', message: 'valeur requise pour la colonne clé' },
      { champ: 'lignes[4].donnees.code', message: 'valeur de clé déjà donnée plus haut dans le fichier' }]]);
    // Two rows with code 1 (a plain import adds), then a keyed import naming code 1.
    await cli(['import', 'rows', 'objets', await file('code,nom\n1,doublon\n')]);
    const withTwins = await list('objets');
    const twins = await cliJson(['import', 'rows', 'objets', await file('code,nom\n1,x\n'), '--cle', 'code'], EN);
    expect([twins.body.error, twins.body.details]).toEqual(['validation_failed',
      [{ champ: 'lignes[2].donnees.code', message: 'several rows of the table have this key value' }]]);
    expect(await list('objets')).toEqual(withTwins);
    expect(withTwins).toHaveLength(before.length + 1);
    const undeclared = await cliJson(['import', 'rows', 'objets', await file('code,nom\n5,a\n'), '--cle', 'prix']);
    expect([undeclared.body.error, undeclared.body.details]).toEqual(['validation_failed', [{ champ: 'cle', message: 'colonne déclarée attendue' }]]);
    const both = await cliJson(['import', 'rows', 'objets', await file('code,nom\n5,a\n'), '--cle', 'code', '--replace']);
    expect([both.code, both.body.error]).toEqual([1, 'invalid_input']);
    expect(await list('objets')).toEqual(withTwins);
  });
});

describe('manette rows delete', () => {
  it('deletes rows by id, or all of them, in a serveur table', async () => {
    const imported = await cliJson(['import', 'rows', 'catalogue', await file(CATALOGUE), '--replace']);
    const [epee, bouclier, arc] = imported.body.data.ids as string[];
    const one = await cli(['rows', 'delete', 'rows', 'catalogue', '--id', bouclier!]);
    expect(one).toMatchObject({ code: 0, stdout: '1 ligne supprimée de la table catalogue du jeu rows.\n' });
    expect((await list('catalogue')).map((r) => r.id)).toEqual([epee, arc]);
    const all = await cliJson(['rows', 'delete', 'rows', 'catalogue', '--all']);
    expect(all.body).toEqual({ ok: true, data: { jeu: 'rows', table: 'catalogue', supprimees: 2, ids: [epee, arc] } });
    expect(await list('catalogue')).toEqual([]);
  });

  it('an unknown id among several: row_not_found naming it, nothing deleted', async () => {
    const imported = await cliJson(['import', 'rows', 'catalogue', await file(CATALOGUE), '--replace']);
    const ids = imported.body.data.ids as string[];
    const r = await cliJson(['rows', 'delete', 'rows', 'catalogue', '--id', ids[0]!, '00000000-0000-4000-8000-000000000000', 'pas-un-id'], EN);
    expect([r.code, r.body.error, r.body.message, r.body.details]).toEqual([1, 'row_not_found', 'Row not found.', [
      { champ: 'id', message: 'row not found: 00000000-0000-4000-8000-000000000000' }, { champ: 'id', message: 'row not found: pas-un-id' }]]);
    expect((await list('catalogue')).map((x) => x.id)).toEqual(ids);
  });

  it('refuses a joueurs table (forbidden), an unknown table, and neither or both of --id and --all', async () => {
    const notes = await list('notes');
    const joueurs = await cliJson(['rows', 'delete', 'rows', 'notes', '--all']);
    expect([joueurs.code, joueurs.body.error]).toEqual([1, 'forbidden']);
    expect(joueurs.body.message).toMatch(/ecriture: serveur/);
    expect(await list('notes')).toEqual(notes);
    expect((await cliJson(['rows', 'delete', 'rows', 'inconnue', '--all'])).body.error).toBe('table_not_found');
    expect((await cliJson(['rows', 'delete', 'nul', 'catalogue', '--all'])).body.error).toBe('game_not_found');
    for (const args of [[], ['--all', '--id', 'x']]) {
      const r = await cliJson(['rows', 'delete', 'rows', 'catalogue', ...args]);
      expect([r.code, r.body.error], args.join(' ')).toEqual([1, 'invalid_input']);
    }
  });

  it('help lists the command and the import options, in both languages', async () => {
    expect((await cli(['rows', 'delete', '--help'])).stdout).toMatch(/--all[\s\S]*supprime toutes les lignes/);
    expect((await cli(['import', '--help'], EN)).stdout).toMatch(/--replace[\s\S]*--cle <colonne>/);
    expect((await cli(['--help'], EN)).stdout).toMatch(/rows\s+the rows of a server table/);
  });
});

describe('audit trail', () => {
  it('every admin write of rows leaves one line: command, table, mode and counts', async () => {
    const before = (await audit()).length;
    const imported = await cliJson(['import', 'rows', 'catalogue', await file(CATALOGUE), '--replace']);
    await cliJson(['import', 'rows', 'objets', await file('code,nom\n9,neuf\n'), '--cle', 'code']);
    await cliJson(['rows', 'delete', 'rows', 'catalogue', '--id', imported.body.data.ids[0]]);
    await cliJson(['rows', 'delete', 'rows', 'catalogue', '--id', 'pas-un-id']); // refused: no line
    expect((await audit()).slice(before)).toEqual([
      { command: 'import', table: 'catalogue', mode: 'replace', cle: null, inserees: 3, mises_a_jour: 0, supprimees: expect.any(Number) },
      { command: 'import', table: 'objets', mode: 'cle', cle: 'code', inserees: 1, mises_a_jour: 0, supprimees: 0 },
      { command: 'rows delete', table: 'catalogue', mode: 'id', supprimees: 1, ids: [imported.body.data.ids[0]],
        avant: [{ id: imported.body.data.ids[0], donnees: { nom: 'Épée', prix: 120 } }], apres: null },
    ]);
    const last = await app.sql<{ db_user: string; operator: string }>('select db_user, operator from manette.admin_audit order by id desc limit 1');
    expect(last[0]!.db_user).toBe(new URL(app.databaseUrl).username);
    // Who: the person at the terminal, not the database login (postgres on a hosted project).
    expect(last[0]!.operator).toBe(`${os.userInfo().username}@${os.hostname()}`);
  });

  it('the operator is MANETTE_OPERATOR when set; a direct SQL caller is recorded by its login', async () => {
    const r = await runManetteJson(['rows', 'delete', 'rows', 'catalogue', '--all'], app.databaseUrl, FR, { MANETTE_OPERATOR: 'camille (studio)' });
    expect(r.code, r.stderr).toBe(0);
    const [cli] = await app.sql<{ operator: string; command: string }>('select operator, command from manette.admin_audit order by id desc limit 1');
    expect(cli).toEqual({ operator: 'camille (studio)', command: 'rows delete' });
    // An audit row written by SQL that set no operator (rolled back: the trail is append-only).
    const db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
    try {
      await db.query('begin; set local role manette_admin');
      const { rows: [direct] } = await db.query(
        `insert into manette.admin_audit (game_id, command) select id, 'test' from manette.games limit 1 returning operator, db_user`);
      expect(direct.operator).toBe(direct.db_user);
      expect(direct.operator).toBe(new URL(app.databaseUrl).username);
    } finally {
      await db.query('rollback');
      await db.end();
    }
  });

  it('key creation and revocation and a player’s revoked sessions leave a line too; a revoke that changes nothing does not', async () => {
    const before = (await audit()).length;
    const created = await cliJson(['keys', 'create', 'rows']);
    expect(created.code, created.stderr).toBe(0);
    const cle = created.body.data.cle as string;
    expect((await cliJson(['keys', 'revoke', 'rows', cle])).code).toBe(0);
    expect((await cliJson(['keys', 'revoke', 'rows', cle])).body.data.deja_revoquee).toBe(true);
    const bob = await client(app.baseUrl, key).register('bob');
    expect((await cliJson(['players', 'revoke-sessions', 'rows', 'bob'])).code).toBe(0);
    // With the state before and after (20261128000300_console_players_keys_audit.sql).
    expect((await audit()).slice(before)).toEqual([
      { command: 'keys create', cle, avant: null, apres: { cle, cree_le: created.body.data.cree_le, revoquee_le: null, active: true } },
      { command: 'keys revoke', cle, avant: { cle, revoquee_le: null, active: true }, apres: { cle, revoquee_le: expect.any(String), active: false } },
      { command: 'players revoke-sessions', joueur_id: bob.data.joueur.id, pseudo: 'bob', sessions_revoquees: 1,
        avant: { sessions_actives: 1, ids: [expect.any(String)] }, apres: { sessions_actives: 0 } },
    ]);
  });
});
