// `manette supabase-function`: the API as the studio's own Supabase Edge Function, in
// supabase/functions/manette, the same function as Manette's own (docs/deploy.md):
// index.ts and deno.json, copied from the package once (the studio's from then on), and
// manette.js, the bundle built here from the installed package (api/edge/bundle.ts: the
// façade and its npm packages in one file, which `supabase functions deploy` uploads
// whole). manette.js is generated, git-ignored, built again at every run: after each
// `npm update manette`, and before each deploy.
import { existsSync } from 'node:fs';
import { appendFile, copyFile, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { BUNDLE_NAME, buildFunctionBundle, FUNCTION_DIR } from '../../edge/bundle.js';
import { say } from '../locale.js';
import { answer, jsonHelp, requireStudio, type CommandContext } from '../output.js';
import { PACKAGE_ROOT } from '../project.js';

/** What earlier versions generated: a copy of the package's sources, and an entry importing it. */
const OLD_GENERATED_DIR = '_package';
const OLD_ENTRY_IMPORT = "import './_package/supabase/functions/manette/index.ts';";
const OLD_DENO_JSON = '"nodeModulesDir": "manual"';
const IGNORED = `supabase/functions/manette/${BUNDLE_NAME}`;

export interface WrittenFunction {
  dir: string;
  version: string;
  /** The bundle's size in bytes (what the deploy uploads, with index.ts and deno.json). */
  bundle_bytes: number;
  entry_written: boolean;
}

export async function writeSupabaseFunction(studioRoot: string): Promise<WrittenFunction> {
  const dir = path.join(studioRoot, 'supabase', 'functions', 'manette');
  const bundle = await buildFunctionBundle(path.join(dir, BUNDLE_NAME));

  // index.ts and deno.json are the studio's once written; those an earlier version
  // generated (they point at _package/) are replaced, and _package/ removed.
  let entryWritten = false;
  const entry = path.join(dir, 'index.ts');
  if (!existsSync(entry) || (await readFile(entry, 'utf8')).includes(OLD_ENTRY_IMPORT)) {
    await copyFile(path.join(FUNCTION_DIR, 'index.ts'), entry);
    entryWritten = true;
  }
  const denoJson = path.join(dir, 'deno.json');
  if (!existsSync(denoJson) || (await readFile(denoJson, 'utf8')).includes(OLD_DENO_JSON)) {
    await copyFile(path.join(FUNCTION_DIR, 'deno.json'), denoJson);
  }
  await rm(path.join(dir, OLD_GENERATED_DIR), { recursive: true, force: true });

  const gitignore = path.join(studioRoot, '.gitignore');
  if (existsSync(gitignore) && !(await readFile(gitignore, 'utf8')).split('\n').includes(IGNORED)) {
    const text = await readFile(gitignore, 'utf8');
    await appendFile(gitignore, `${text === '' || text.endsWith('\n') ? '' : '\n'}${IGNORED}\n`);
  }

  const version = (JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return { dir: path.relative(studioRoot, dir), version, bundle_bytes: bundle.bytes, entry_written: entryWritten };
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
          fr: 'sa fonction est dans supabase/functions/manette : `npm run build:function` la construit. Lance cette commande dans le dossier de ton jeu.',
          en: 'its function is in supabase/functions/manette: `npm run build:function` builds it. Run this in your game\'s folder.',
        });
        return writeSupabaseFunction(ctx.project.root);
      }, (r) => [
        say({ fr: 'Edge Function écrite dans {dir} (Manette {v}) : {dir}/manette.js, {mb} Mo.', en: 'Edge Function written in {dir} (Manette {v}): {dir}/manette.js, {mb} MB.' },
          lang, { dir: r.dir, v: r.version, mb: (r.bundle_bytes / 1e6).toFixed(1) }),
        say({
          fr: 'manette.js est généré : relance cette commande après chaque `npm update manette`.\nEnsuite : npx supabase functions deploy manette --use-api --no-verify-jwt (réglages : node_modules/manette/docs/deploy.md)',
          en: 'manette.js is generated: run this command again after each `npm update manette`.\nNext: npx supabase functions deploy manette --use-api --no-verify-jwt (settings: node_modules/manette/docs/deploy.md)',
        }, lang),
      ].join('\n'));
    });
}
