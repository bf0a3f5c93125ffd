// The demo game's key, read without applying anything (a later `npm start` prints it).
import { asAdmin } from '../db/admin.js';

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
