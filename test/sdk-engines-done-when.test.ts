// Issue 33's "done when", as a newcomer lives it: a clean copy of the repository (what a
// clone has), `npm start` in it on its embedded database with the demo game, then the
// commands docs/sdk-csharp.md and docs/sdk-python.md give, as written there (only the
// port and the key printed by `npm start` put in): the C# console program and the Python
// script log in (signing up first), get matched together, play the demo's match to its
// end and read the leaderboard. Nothing asserts how long anything took.
import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanCopy } from './support/clean-copy.js';
import { freePort } from './support/net.js';
import { npmStart, stopStarted } from './support/npm-start.js';
import { runCommand } from './support/run-command.js';
import { requireTool } from './support/conformance.js';

const haveMono = requireTool('sdk-engines-done-when', '/usr/bin/mono', 'apt-get install mono-devel');
const havePython = requireTool('sdk-engines-done-when', '/usr/bin/python3', 'apt-get install python3-websocket');

// The docs' commands, each exactly as a line (or lines) of the page, then with the port and key put in.
const CSHARP_BUILD = 'bash sdk/csharp/build.sh';
const CSHARP_RUN = 'mono Morpion.exe --url http://localhost:3000 --key <demo key> \\\n  --pseudo alice --password motdepasse-solide --register --email alice@example.com';
const PYTHON_RUN = "PYTHONPATH=sdk/python python3 sdk/python/examples/quickstart.py http://localhost:3000 sk_live_... bob   'a long password'";

/** A command line of the docs as argv (quotes, and a backslash-newline continuation). */
function argv(line: string): string[] {
  return [...line.replace(/\\\n\s*/g, ' ').matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe.skipIf(!haveMono || !havePython)('C# and Python programs play each other, following only the docs', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let key: string;
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    dir = await cleanCopy('engines');
    port = await freePort();
    // A newcomer's shell on Debian: its python3 (with python3-websocket) first.
    env = {
      PATH: `/usr/bin:${process.env.PATH}`, HOME: process.env.HOME, LANG: 'en_US.UTF-8',
      npm_config_update_notifier: 'false', npm_config_fund: 'false',
      PORT: String(port), MANETTE_PG_PORT: String(await freePort()), MANETTE_REALTIME_PORT: '0',
      MANETTE_WORKERS: '1', MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
      MANETTE_REQUEST_LOG: path.join(dir, 'requests.log'),
    };
    const manette = await npmStart(env, started, { cwd: dir });
    key = /x-api-key:\s+(sk_live_\w+)/.exec(manette.out())?.[1] ?? /key=(sk_live_\w+)/.exec(manette.out())![1]!;
  }, 360_000);

  afterAll(async () => {
    await stopStarted(started);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('the docs give these commands', async () => {
    const csharp = await readFile(path.join(dir, 'docs/sdk-csharp.md'), 'utf8');
    const python = await readFile(path.join(dir, 'docs/sdk-python.md'), 'utf8');
    expect(csharp).toContain(CSHARP_BUILD);
    expect(csharp).toContain('cd sdk/csharp/build');
    expect(csharp).toContain(CSHARP_RUN);
    expect(python).toContain(PYTHON_RUN);
  });

  it('a C# program and a Python script log in, get matched together, play to the end and read the leaderboard', async () => {
    const build = await runCommand('bash', argv(CSHARP_BUILD).slice(1), { cwd: dir, env: env as Record<string, string> });
    expect(build.code, build.out.slice(-3000)).toBe(0);
    const local = (s: string) => s.replace('http://localhost:3000', `http://localhost:${port}`).replace('<demo key>', key).replace('sk_live_...', key);
    const [cs, ...csArgs] = argv(local(CSHARP_RUN));
    const [pyEnv, py, ...pyArgs] = argv(local(PYTHON_RUN));
    const [csharp, python] = await Promise.all([
      runCommand(cs!, csArgs, { cwd: path.join(dir, 'sdk/csharp/build'), env: env as Record<string, string> }),
      runCommand(py!, pyArgs, { cwd: dir, env: { ...env, [pyEnv!.split('=')[0]!]: pyEnv!.split('=')[1]! } as Record<string, string> }),
    ]);
    expect(csharp.code, csharp.out.slice(-3000)).toBe(0);
    expect(python.code, python.out.slice(-3000)).toBe(0);

    const lines = csharp.out.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
    const final = lines.at(-1)!.final as Record<string, any>;
    expect(final.statut).toBe('terminee');
    // Matched together: the two players of the match are alice (C#) and bob (Python).
    expect((final.participants as Array<{ pseudo: string }>).map((p) => p.pseudo).sort()).toEqual(['alice', 'bob']);
    expect(python.out).toMatch(/matched: \['(alice', 'bob|bob', 'alice)'\]/);
    // The same end on both sides.
    const alice = final.participants.find((p: any) => p.pseudo === 'alice').joueur_id;
    const bobResult = final.gagnant_id === null ? 'draw' : final.gagnant_id === alice ? 'lost' : 'won';
    expect(python.out).toContain(`result: ${bobResult}`);
    expect(lines.at(-1)!.history.actions.length).toBe(final.numero_tour - 1);
    // Both read the leaderboard of wins, which counts this match.
    expect(lines.some((l) => l.event === 'leaderboard')).toBe(true);
    expect(python.out).toMatch(/victoires: #1 /);
  }, 300_000);
});
