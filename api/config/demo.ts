// The demo game's key, read without applying anything (a later `npm start` prints it), and
// what the web page at /demo/ needs to know of the game `manette start` serves (its name,
// its modes), so a studio's page shows the studio's game rather than the demo's.
import { asAdmin } from '../db/admin.js';
import { textIn, type GameText } from './game-config.js';

export const DEMO_GAME_SLUG = 'demo';

/** The key of the game `demo` if that game exists (as manette_admin, reads only). */
export async function existingDemoGame(databaseUrl: string): Promise<{ jeu: string; api_key: string } | undefined> {
  return asAdmin(databaseUrl, async (client) => {
    const { rows } = await client.query<{ key: string }>(
      `select k.key from manette.api_keys k join manette.games g on g.id = k.game_id
       where g.slug = $1 and k.revoked_at is null order by k.created_at, k.id limit 1`, [DEMO_GAME_SLUG]);
    return rows[0] ? { jeu: DEMO_GAME_SLUG, api_key: rows[0].key } : undefined;
  });
}

/** What /demo/jeu.json says of a game: nothing the API does not already tell its players. */
export interface DemoPage {
  /** The game's `nom` as the file gives it (one text, or one per language): demoPageIn picks the page's. */
  nom: GameText;
  modes: {
    code: string; regles: string; equipes: number; joueurs_par_equipe: number; classement_victoires: string | null;
    /** Turn timer (null: none), whether players may watch, who keeps the rating: the page shows them. */
    delai_tour_s: number | null; spectateurs: boolean; elo: 'client' | 'serveur';
  }[];
  /**
   * The project's Supabase Auth, when the game file declares a `{"supabase": true}` provider
   * and the server knows its URL: the provider's name, and the project URL supabase-js takes
   * (MANETTE_SUPABASE_AUTH_URL without /auth/v1). The page signs players in with it.
   */
  supabase?: { fournisseur: string; url: string };
}

/** The page's view of a game's config (the applied file, as stored), with the server's Supabase Auth URL if any. */
export function demoPageOf(config: Record<string, unknown>, supabaseAuthUrl?: string): DemoPage {
  const modes = (config.modes && typeof config.modes === 'object' ? config.modes : {}) as Record<string, Record<string, unknown>>;
  const connexions = (config.connexions && typeof config.connexions === 'object' ? config.connexions : {}) as Record<string, Record<string, unknown>>;
  const supabaseProvider = Object.keys(connexions).find((name) => connexions[name]?.supabase === true);
  return {
    ...(supabaseProvider && supabaseAuthUrl
      ? { supabase: { fournisseur: supabaseProvider, url: supabaseAuthUrl.replace(/\/auth\/v1\/?$/, '') } } : {}),
    nom: typeof config.nom === 'string' || (config.nom && typeof config.nom === 'object') ? config.nom as GameText : String(config.jeu ?? ''),
    modes: Object.entries(modes).map(([code, m]) => ({
      code,
      regles: String(m.regles ?? ''),
      equipes: Number(m.equipes ?? 2),
      joueurs_par_equipe: Number(m.joueurs_par_equipe ?? 1),
      classement_victoires: typeof m.classement_victoires === 'string' ? m.classement_victoires : null,
      delai_tour_s: typeof m.delai_tour_s === 'number' ? m.delai_tour_s : null,
      spectateurs: m.spectateurs === true,
      elo: m.elo === 'serveur' ? 'serveur' : 'client',
    })),
  };
}

/** What /demo/jeu.json answers in `lang` (the page's language): the name as one string, as the API gives texts. */
export function demoPageIn(page: DemoPage, lang: 'fr' | 'en'): Omit<DemoPage, 'nom'> & { nom: string } {
  return { ...page, nom: textIn(page.nom, lang) ?? '' };
}

/** The applied config of the game `jeu`, for the page (as manette_admin, reads only). */
export async function demoPageOfGame(databaseUrl: string, jeu: string, supabaseAuthUrl?: string): Promise<DemoPage | undefined> {
  return asAdmin(databaseUrl, async (client) => {
    const { rows } = await client.query<{ config: Record<string, unknown> }>('select config from manette.games where slug = $1', [jeu]);
    return rows[0] ? demoPageOf(rows[0].config, supabaseAuthUrl) : undefined;
  });
}

/** The game this process serves the page for, by the key the banner prints. */
let served: { apiKey: string; page: DemoPage } | undefined;

export function setDemoPage(apiKey: string, page: DemoPage | undefined): void {
  served = page ? { apiKey, page } : undefined;
}

/** The page's description for a key: only the served game's key gets one. */
export function demoPageFor(apiKey: string | undefined): DemoPage | undefined {
  return served && apiKey === served.apiKey ? served.page : undefined;
}
