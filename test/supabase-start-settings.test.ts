// docs/deploy.md, "Developing against `supabase start`": the settings it gives for the
// Supabase CLI's local stack are the CLI's own, checked against the CLI this project pins
// (node_modules, the same version the deploy tests run). Docker cannot run here, so the
// stack itself is not started: `supabase init` writes the config.toml whose ports the
// stack uses, and the CLI's binary holds the default publishable key and JWT secret that
// `supabase start` uses when config.toml sets none (supabase/cli,
// apps/cli-go/pkg/config/apikeys.go: defaultPublishableKey, defaultJwtSecret).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../api/config/settings.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '..');
const SUPABASE_CLI = path.join(REPO, 'node_modules', '.bin', 'supabase');

/** The section's shell block: its `export NAME='value'` lines. */
async function documentedExports(): Promise<Record<string, string>> {
  const page = await readFile(path.join(REPO, 'docs', 'deploy.md'), 'utf8');
  const section = page.slice(page.indexOf('## 4. Developing against `supabase start`'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/deploy.md: no shell block in "Developing against `supabase start`"');
  return Object.fromEntries([...block.matchAll(/^export (\w+)='([^']*)'/gm)].map((m) => [m[1]!, m[2]!]));
}

/** `key = value` of a [section] of a TOML file (enough for config.toml's flat sections). */
function tomlValue(toml: string, section: string, key: string): string | undefined {
  const start = toml.indexOf(`\n[${section}]\n`);
  if (start < 0) return undefined;
  const body = toml.slice(start + section.length + 4).split(/\n\[/)[0]!;
  return new RegExp(`^${key} = (.+)$`, 'm').exec(body)?.[1]?.replace(/^"|"$/g, '');
}

describe('the settings for the Supabase CLI\'s local stack (docs/deploy.md, section 4)', () => {
  let dir: string;
  let toml: string;
  let exports: Record<string, string>;
  beforeAll(async () => {
    exports = await documentedExports();
    dir = await mkdtemp(path.join(tmpdir(), 'manette-supabase-init-'));
    await run(SUPABASE_CLI, ['init'], { cwd: dir, env: { ...process.env, SUPABASE_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' }, timeout: 60_000 });
    toml = await readFile(path.join(dir, 'supabase', 'config.toml'), 'utf8');
  }, 90_000);
  afterAll(async () => { if (dir) await rm(dir, { recursive: true, force: true }); });

  it('gives the four settings, which Manette reads as a Supabase project\'s', () => {
    expect(Object.keys(exports).sort()).toEqual(['DATABASE_URL', 'MANETTE_REALTIME_JWT_SECRET', 'MANETTE_REALTIME_KEY', 'MANETTE_REALTIME_URL']);
    const settings = readSettings(exports);
    expect(settings.MANETTE_REALTIME_URL).toBe(exports.MANETTE_REALTIME_URL);
    expect(settings.MANETTE_REALTIME_KEY).toMatch(/^sb_publishable_/);
  });

  it('the database and the gateway (Realtime at /realtime/v1) on the ports `supabase init` writes', () => {
    const db = new URL(exports.DATABASE_URL!);
    expect([db.username, db.password, db.hostname, db.pathname]).toEqual(['postgres', 'postgres', '127.0.0.1', '/postgres']);
    expect(db.port).toBe(tomlValue(toml, 'db', 'port'));
    const rt = new URL(exports.MANETTE_REALTIME_URL!);
    expect([rt.protocol, rt.hostname, rt.pathname]).toEqual(['ws:', '127.0.0.1', '/realtime/v1']);
    expect(rt.port).toBe(tomlValue(toml, 'api', 'port'));
    // config.toml leaves the keys and the JWT secret to the CLI's defaults.
    expect(toml).not.toMatch(/^\s*jwt_secret\s*=/m);
    expect(toml).not.toMatch(/^\s*publishable_key\s*=/m);
  });

  it('the publishable key and the JWT secret are the defaults built into the CLI', async () => {
    // The npm package runs a platform binary (node_modules/supabase/dist/supabase.js finds it
    // the same way); `supabase init` above ran it, so it is there.
    const require = createRequire(import.meta.url);
    const os = process.platform === 'win32' ? 'windows' : process.platform;
    const pkg = [`@supabase/cli-${os}-${process.arch}`, `@supabase/cli-${os}-${process.arch}-musl`]
      .find((name) => { try { require.resolve(`${name}/package.json`); return true; } catch { return false; } });
    expect(pkg, 'the Supabase CLI\'s platform binary package').toBeDefined();
    const binary = await readFile(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', `supabase${os === 'windows' ? '.exe' : ''}`));
    expect(binary.includes(exports.MANETTE_REALTIME_KEY!)).toBe(true);
    expect(binary.includes(exports.MANETTE_REALTIME_JWT_SECRET!)).toBe(true);
  });
});
