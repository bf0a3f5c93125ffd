// `manette supabase-function`: the API as the studio's own Supabase Edge Function, in
// supabase/functions/manette. Deno refuses TypeScript under node_modules, so the façade's
// files (api/, the built SDK, the web demo, the function's entry) are copied from the
// installed package into supabase/functions/manette/_package: generated, replaced whole
// at every run (again after `npm update manette`), never edited; its npm dependencies are
// the studio's node_modules. The studio's index.ts and deno.json are written once.
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { say } from '../locale.js';
import { answer, jsonHelp, requireStudio, type CommandContext } from '../output.js';
import { PACKAGE_ROOT } from '../project.js';

/** What the function needs of the package, by path in the package. */
const PACKAGE_PARTS = ['api', 'sdk/dist', 'examples/demo/web', 'supabase/functions/manette', 'package.json'];
export const GENERATED_DIR = '_package';

const ENTRY = `// The Manette API as this project's Supabase Edge Function "manette". _package/ is
// generated from the installed package by \`npx manette supabase-function\` (run it again
// after \`npm update manette\`, and before \`supabase functions deploy manette\`).
import './${GENERATED_DIR}/supabase/functions/manette/index.ts';
`;

export interface WrittenFunction { dir: string; version: string; entry_written: boolean }

export async function writeSupabaseFunction(studioRoot: string): Promise<WrittenFunction> {
  const dir = path.join(studioRoot, 'supabase', 'functions', 'manette');
  const generated = path.join(dir, GENERATED_DIR);
  // Built aside, then swapped in: a half-written copy is never left in place.
  const next = `${generated}.next-${process.pid}`;
  await rm(next, { recursive: true, force: true });
  for (const part of PACKAGE_PARTS) {
    await mkdir(path.dirname(path.join(next, part)), { recursive: true });
    await cp(path.join(PACKAGE_ROOT, part), path.join(next, part), {
      recursive: true, filter: (src) => !src.includes(`${path.sep}studio-template`) && !src.endsWith('.test.ts'),
    });
  }
  await rm(generated, { recursive: true, force: true });
  await cp(next, generated, { recursive: true });
  await rm(next, { recursive: true, force: true });

  let entryWritten = false;
  if (!existsSync(path.join(dir, 'index.ts'))) {
    await writeFile(path.join(dir, 'index.ts'), ENTRY);
    entryWritten = true;
  }
  if (!existsSync(path.join(dir, 'deno.json'))) {
    await cp(path.join(PACKAGE_ROOT, 'supabase', 'functions', 'manette', 'deno.json'), path.join(dir, 'deno.json'));
  }
  const version = (JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return { dir: path.relative(studioRoot, dir), version, entry_written: entryWritten };
}

export function registerSupabaseFunction(program: Command, ctx: CommandContext): void {
  const { lang } = ctx;
  program.command('supabase-function')
    .description(lang === 'fr'
      ? 'écrit l’API comme Edge Function Supabase du projet (supabase/functions/manette)'
      : 'write the API as the project\'s Supabase Edge Function (supabase/functions/manette)')
    .option('--json', jsonHelp(lang))
    .action(async (opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, async () => {
        requireStudio(ctx, {
          fr: 'sa fonction est déjà dans supabase/functions/manette. Lance cette commande dans le dossier de ton jeu.',
          en: 'its function already is in supabase/functions/manette. Run this in your game\'s folder.',
        });
        return writeSupabaseFunction(ctx.project.root);
      }, (r) => [
        say({ fr: 'Edge Function écrite dans {dir} (Manette {v}).', en: 'Edge Function written in {dir} (Manette {v}).' }, lang, { dir: r.dir, v: r.version }),
        say({
          fr: '{dir}/_package est généré : relance cette commande après chaque `npm update manette`.\nEnsuite : npx supabase functions deploy manette (réglages : node_modules/manette/docs/deploy.md)',
          en: '{dir}/_package is generated: run this command again after each `npm update manette`.\nNext: npx supabase functions deploy manette (settings: node_modules/manette/docs/deploy.md)',
        }, lang, { dir: r.dir }),
      ].join('\n'));
    });
}
