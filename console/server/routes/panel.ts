// The Panels page's endpoints. The config stays code: the editor never writes the panel to
// the database alone. It writes the `panel` part of the game file the console was given
// (--jeu, else the project's) and applies that file in the same step, the way
// `manette apply` does; without a file of this game it only shows the JSON to paste.
//   GET  /games/:jeu/panel            → manette_admin.console_panel (given the file's config,
//                                       it names the parts where file and database differ)
//   PUT  /games/:jeu/panel            → the file with the new panel, manette_admin.panel_apply
//                                       (audited `panel save`), then the file written
//   POST /games/:jeu/panel/apply-file → the file unchanged, manette_admin.game_file_apply
//                                       (audited `apply`)
// The file and the database never disagree silently: GET says whether they agree (en_phase)
// and on which parts they differ; a save is refused when they differ outside the panel
// (game_file_differs from manette_admin.panel_apply: apply the file as it is first) or when
// the file changed on disk since the page read it (game_file_changed, by its sha-256
// `version`). Which parts differ is the database's answer (config_parts_differing), never
// computed here.
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { applyEdits, modify, parse, type ParseError } from 'jsonc-parser';
import path from 'node:path';
import { z } from 'zod';
import { canonicalJson } from '../../../api/canonical-json.js';
import { parseGameConfig, type GameConfig } from '../../../api/config/game-config.js';
import type { Lang } from '../../../api/http/messages.js';
import { newApiKey } from '../../../api/security/tokens.js';
import { adminCall, type ConsoleDeps, ConsoleError, type ConsoleRoute, consoleRoute, GameParams } from '../route.js';

type Json = Record<string, unknown>;

/** What manette_admin.console_panel answers. */
interface ConsolePanel {
  jeu: string;
  panel: { theme?: Json; textes?: Json } | null;
  effectif: unknown;
  defauts: unknown;
  config: Json;
  /** Given the file's config: the top-level parts where it and the database differ. */
  parties_differentes: string[] | null;
}

/** The game file as the page sees it. */
export interface FileState {
  chemin: string;
  /** sha-256 of the file's bytes: a save or an apply names the version it was shown. */
  version: string | null;
  /** The file's `jeu` (null when unreadable). */
  jeu: string | null;
  /** The file's `panel` part, as written in it. */
  panel: unknown;
  meme_jeu: boolean;
  /** The file, parsed as `manette apply` parses it, equals the stored config. */
  en_phase: boolean;
  /** The top-level parts where the file and the database differ (panel included). */
  parties_differentes: string[];
  /** The file cannot be read, is not JSON, or is not a valid game file. */
  erreur: { code: string; message: string } | null;
}

const say = (lang: Lang, en: string, fr: string) => (lang === 'fr' ? fr : en);
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The file's lines `  path: message` of parseGameConfig's error, as {champ, message}. */
function fileIssues(error: string): { champ: string; message: string }[] {
  return error.split('\n').slice(1).map((line) => {
    const m = /^ {2}(\S+?): (.*)$/s.exec(line);
    return m ? { champ: m[1]!, message: m[2]! } : { champ: '(racine)', message: line.trim() };
  });
}

interface ReadFile { bytes: Buffer; text: string; raw: unknown; version: string }

async function readRaw(file: string, lang: Lang): Promise<ReadFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new ConsoleError(409, 'game_file_unreadable', say(lang, `The game file cannot be read: ${file} (${(err as Error).message})`,
      `Le fichier du jeu est illisible : ${file} (${(err as Error).message})`));
  }
  const text = bytes.toString('utf8');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConsoleError(409, 'game_file_invalid_json', say(lang, `${file} is not valid JSON: ${(err as Error).message}`,
      `${file} n’est pas du JSON valide : ${(err as Error).message}`));
  }
  return { bytes, text, raw, version: sha256(bytes) };
}

/** The file's state, and its config when it parses (for the database to compare). */
async function fileState(file: string, jeu: string, lang: Lang): Promise<{ state: FileState; config?: GameConfig }> {
  const state: FileState = { chemin: file, version: null, jeu: null, panel: null, meme_jeu: false, en_phase: false, parties_differentes: [], erreur: null };
  let read: ReadFile;
  try {
    read = await readRaw(file, lang);
  } catch (err) {
    const e = err as ConsoleError;
    return { state: { ...state, erreur: { code: e.code, message: e.message } } };
  }
  state.version = read.version;
  const raw = (read.raw && typeof read.raw === 'object' && !Array.isArray(read.raw) ? read.raw : {}) as Json;
  state.jeu = typeof raw.jeu === 'string' ? raw.jeu : null;
  state.panel = raw.panel ?? null;
  state.meme_jeu = state.jeu === jeu;
  const parsed = parseGameConfig(read.raw, lang);
  if (!parsed.ok) return { state: { ...state, erreur: { code: 'invalid_game_file', message: parsed.error } } };
  return { state, config: parsed.config };
}

/**
 * The file's text with its `panel` part made `panel`, edited where it stands: each theme
 * or text key (or language of a text) that changed is set, added or removed in place (jsonc-parser's edits), so
 * the rest of the file and of the panel keeps its layout, one-line objects included.
 * `undefined` when the text is not a JSON object.
 */
export function withPanel(text: string, panel: Json | undefined): string | undefined {
  const errors: ParseError[] = [];
  const current = parse(text, errors) as unknown;
  if (errors.length || !current || typeof current !== 'object' || Array.isArray(current)) return undefined;
  // The file's own indentation for what is added (its first indented line), else two spaces.
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  const formattingOptions = { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: '\n' };
  let out = text;
  const set = (path: (string | number)[], value: unknown) => {
    out = applyEdits(out, modify(out, path, value, { formattingOptions }));
  };
  const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
  const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);
  // Down to the values that changed: a theme key, a text, one language of a text given per
  // language ({"fr": …, "en": …}).
  const edit = (path: string[], was: unknown, now: unknown) => {
    if (isObject(was) && isObject(now)) {
      for (const k of new Set([...Object.keys(was), ...Object.keys(now)])) edit([...path, k], was[k], now[k]);
    } else if (!same(was, now)) {
      set(path, now);
    }
  };
  edit(['panel'], (current as Json).panel, panel);
  return out;
}

/** The new file text: the panel spliced in when possible, else the whole file with 2 spaces. */
function newFileText(read: ReadFile, raw: Json): string {
  const spliced = withPanel(read.text, raw.panel as Json | undefined);
  let text = spliced !== undefined && (() => {
    try { return canonicalJson(JSON.parse(spliced)) === canonicalJson(raw); } catch { return false; }
  })() ? spliced : `${JSON.stringify(raw, null, 2)}\n`;
  if (!text.endsWith('\n')) text += '\n';
  return text;
}

/** The console's game file when it is this game's, else no_game_file. */
async function ownFile(deps: ConsoleDeps, jeu: string, lang: Lang, version: string): Promise<{ file: string; read: ReadFile; raw: Json }> {
  const file = deps.gameFile;
  const none = (why: string) => new ConsoleError(409, 'no_game_file', why);
  if (!file) {
    throw none(say(lang, 'The console has no game file (manette console --jeu game.json): copy the JSON of the panel into your game file, then run manette apply.',
      'La console n’a pas de fichier de jeu (manette console --jeu game.json) : copie le JSON du panneau dans ton fichier de jeu, puis lance manette apply.'));
  }
  const read = await readRaw(file, lang);
  const raw = (read.raw && typeof read.raw === 'object' && !Array.isArray(read.raw) ? read.raw : {}) as Json;
  if (raw.jeu !== jeu) {
    throw none(say(lang, `The console’s game file (${file}) is the game’s “${String(raw.jeu)}”, not “${jeu}”: copy the JSON of the panel into this game’s file.`,
      `Le fichier de jeu de la console (${file}) est celui du jeu « ${String(raw.jeu)} », pas de « ${jeu} » : copie le JSON du panneau dans le fichier de ce jeu.`));
  }
  if (read.version !== version) {
    throw new ConsoleError(409, 'game_file_changed', say(lang,
      `${file} changed on disk since this page read it: nothing was written. Reload to see it.`,
      `${file} a changé sur le disque depuis que cette page l’a lu : rien n’a été écrit. Recharge pour le voir.`));
  }
  return { file, read, raw };
}

function parsedOrThrow(raw: unknown, lang: Lang, edited: boolean): GameConfig {
  const parsed = parseGameConfig(raw, lang);
  if (!parsed.ok) {
    throw new ConsoleError(400, 'validation_failed', edited
      ? say(lang, 'The game file would be invalid: nothing was written.', 'Le fichier du jeu serait invalide : rien n’a été écrit.')
      : say(lang, 'The game file is invalid: nothing was applied.', 'Le fichier du jeu est invalide : rien n’a été appliqué.'),
    fileIssues(parsed.error));
  }
  return parsed.config;
}

/** One save or apply of the game file at a time in this console (two tabs, a double click). */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work);
  queue = run.catch(() => {});
  return run;
}

const Params = GameParams;

export const panelRoutes: ConsoleRoute<any, any, any>[] = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/panel', params: Params,
    async handler({ deps, params, lang }) {
      const file = deps.gameFile ? await fileState(deps.gameFile, params.jeu, lang) : null;
      const { parties_differentes: parts, ...data } = await adminCall<ConsolePanel>(deps,
        'select manette_admin.console_panel($1, $2::jsonb) as r', [params.jeu, file?.config ? JSON.stringify(file.config) : null]);
      const fichier = file && { ...file.state, parties_differentes: parts ?? [],
        en_phase: file.state.meme_jeu && parts !== null && parts.length === 0 };
      return { ...data, fichier };
    },
  }),

  consoleRoute({
    method: 'put', path: '/games/:jeu/panel', params: Params,
    body: z.object({ panel: z.record(z.string(), z.unknown()), version: z.string().min(1) }),
    handler: ({ deps, params, body, lang }) => oneAtATime(async () => {
      const { file, read, raw } = await ownFile(deps, params.jeu, lang, body.version);
      // The file's other keys kept, in their order; its panel replaced by the editor's.
      const next: Json = { ...raw, panel: body.panel };
      const config = parsedOrThrow(next, lang, true);
      // A file differing from the database outside the panel: panel_apply refuses
      // (game_file_differs, one field per part) and the temporary file goes.
      const text = newFileText(read, next);
      // Written beside the file first, then renamed over it once the database has it.
      const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
      const mode = (await stat(file)).mode & 0o777;
      await writeFile(temp, text, { mode, flag: 'wx' });
      let result: unknown;
      try {
        // Last look: an editor may have saved the file while this one was being prepared.
        if (sha256(await readFile(file)) !== body.version) {
          throw new ConsoleError(409, 'game_file_changed', say(lang, `${file} changed on disk meanwhile: nothing was written.`,
            `${file} a changé sur le disque entre-temps : rien n’a été écrit.`));
        }
        result = await adminCall(deps, 'select manette_admin.panel_apply($1, $2::jsonb, $3, $4) as r',
          [params.jeu, JSON.stringify(config), newApiKey(), file]);
      } catch (err) {
        await unlink(temp).catch(() => {});
        throw err;
      }
      try {
        await rename(temp, file);
      } catch (err) {
        throw new ConsoleError(500, 'game_file_write_failed', say(lang,
          `The database has the new panel, but ${file} could not be replaced (${(err as Error).message}). `
            + `The new file is ${temp}: move it over ${file}, or apply ${file} to go back.`,
          `La base a le nouveau panneau, mais ${file} n’a pas pu être remplacé (${(err as Error).message}). `
            + `Le nouveau fichier est ${temp} : mets-le à la place de ${file}, ou applique ${file} pour revenir en arrière.`));
      }
      return { ...(result as Json), version: sha256(text), contenu: text };
    }),
  }),

  consoleRoute({
    method: 'post', path: '/games/:jeu/panel/apply-file', params: Params,
    body: z.object({ version: z.string().min(1) }),
    handler: ({ deps, params, body, lang }) => oneAtATime(async () => {
      const { file, raw } = await ownFile(deps, params.jeu, lang, body.version);
      const config = parsedOrThrow(raw, lang, false);
      return adminCall(deps, 'select manette_admin.game_file_apply($1, $2::jsonb, $3, $4) as r',
        [params.jeu, JSON.stringify(config), newApiKey(), file]);
    }),
  }),
];
