// `manette apply`: validate a game file, then create or update the game in one call of
// manette_admin.apply_game (as the manette_admin role). Nothing is written on a bad file.
import { readFile } from 'node:fs/promises';
import { asAdmin } from '../db/admin.js';
import { parseGameConfig } from './game-config.js';
import { newApiKey } from '../security/tokens.js';
import type { Lang } from '../http/messages.js';
import { jsonErrorText } from './json-error.js';

export interface ApplyResult { ok: true; jeu: string; api_key: string }

/** A game file refused before any database work; `code` is the --json error code. */
export class GameFileError extends Error {
  constructor(message: string, readonly code: 'file_missing' | 'file_unreadable' | 'invalid_json' | 'invalid_game_file' = 'invalid_game_file') {
    super(message);
  }
}

export async function readGameFile(file: string, lang: Lang = 'fr') {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new GameFileError(lang === 'fr' ? `fichier introuvable ou illisible : ${file}` : `file not found or unreadable: ${file}`, 'file_unreadable');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new GameFileError(jsonErrorText(file, text, (err as Error).message, lang), 'invalid_json');
  }
  const parsed = parseGameConfig(raw, lang);
  if (!parsed.ok) throw new GameFileError(`${file}${lang === 'fr' ? ' : ' : ': '}${parsed.error}`, 'invalid_game_file');
  return parsed.config;
}

export async function applyGameFile(databaseUrl: string, file: string, lang: Lang = 'fr'): Promise<ApplyResult> {
  const config = await readGameFile(file, lang);
  return asAdmin(databaseUrl, async (client) =>
    (await client.query('select manette_admin.apply_game($1::jsonb, $2) as r', [JSON.stringify(config), newApiKey()])).rows[0].r as ApplyResult);
}

export async function gameCount(databaseUrl: string): Promise<number> {
  return asAdmin(databaseUrl, async (client) => Number((await client.query('select manette_admin.game_count() as n')).rows[0].n));
}

