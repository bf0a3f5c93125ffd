// A game file that is not JSON: the error says where, as an editor shows it (line and
// column), in the user's language, and the file's name first.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameFileError, readGameFile } from '../api/config/apply.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'manette-json-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

async function failure(text: string, lang: 'fr' | 'en') {
  const file = path.join(dir, 'jeu.json');
  await writeFile(file, text);
  const err = await readGameFile(file, lang).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(GameFileError);
  expect((err as GameFileError).code).toBe('invalid_json');
  return (err as GameFileError).message.replace(file, 'jeu.json');
}

describe('a game file that is not JSON', () => {
  it('names the line and column of the error', async () => {
    const text = '{\n  "jeu": "x",\n  "nom": "X",,\n  "modes": {}\n}\n';
    expect(await failure(text, 'en')).toBe('jeu.json is not valid JSON at line 3, column 14: Expected double-quoted property name');
    expect(await failure(text, 'fr')).toBe('jeu.json n’est pas du JSON valide (ligne 3, colonne 14)');
  });

  it('says when the file ends too early', async () => {
    expect(await failure('{"jeu": ', 'en')).toBe('jeu.json is not valid JSON: the file ends too early');
    expect(await failure('{"jeu": ', 'fr')).toBe('jeu.json n’est pas du JSON valide (fin du fichier atteinte trop tôt)');
  });
});
