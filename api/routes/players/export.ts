// GET /players/me/export → api.players_export
// SQL now: supabase/schema/functions/api.players_export.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Joueur } from '../schemas.js';

const date = z.string();
const maybeDate = z.string().nullable();
const PlayerExport = z.object({
  data: z.object({
    exporte_le: date,
    joueur: Joueur.extend({
      google_sub: z.string().nullable(),
      supabase_user_id: z.uuid().nullable().meta({ description: 'The project’s Supabase Auth user this player signed in as (connexions), or null.' }),
      identites: z.array(z.object({ fournisseur: z.string(), emetteur: z.string(), sub: z.string(), cree_le: date }))
        .meta({ description: 'Identity tokens’ identities (issuer and sub) that open this player (POST /players/login/jeton).' }),
      vu_le: date,
      maj_le: date,
      suspension: z.object({ depuis: date, jusqu_a: maybeDate, raison: z.string().nullable() }).nullable(),
    }),
    sessions: z.array(z.object({ cree_le: date, utilisee_le: date, expire_le: date, revoquee_le: maybeDate })),
    lignes: z.array(z.object({ table: z.string(), id: z.uuid(), donnees: z.record(z.string(), z.unknown()), cree_le: date, maj_le: date })),
    fichiers: z.array(z.object({
      nom: z.string(), mime_type: z.string(), taille: z.number().int(), cree_le: date, maj_le: date,
      contenu: z.string().meta({ description: 'As uploaded (base64 for binary types).' }),
    })),
    avatar: z.object({ mime_type: z.string(), contenu: z.string().meta({ description: 'base64' }), maj_le: date }).nullable(),
    scores: z.array(z.object({ classement: z.string(), periode: maybeDate.meta({ description: 'Start of the period; null for a leaderboard never reset.' }), valeur: z.number(), atteint_le: date })),
    elo: z.array(z.object({ mode_jeu: z.string(), valeur: z.number(), parties: z.number().int(), maj_le: date })),
    parties: z.array(z.object({
      id: z.uuid(), mode_jeu: z.string(), statut: z.string(), equipe: z.number().int(),
      gagnant_id: z.uuid().nullable(), gagnant_equipe: z.number().int().nullable(), cree_le: date, termine_le: maybeDate,
      actions: z.array(z.object({ numero: z.number().int(), action: z.string(), donnees: z.unknown(), numero_tour: z.number().int(), cree_le: date }))
        .meta({ description: 'The player’s own actions in that match.' }),
    })),
    economie: z.object({
      portefeuille: z.array(z.object({ code: z.string(), nom: z.string().nullable(), solde: z.number(), max: z.number().nullable() })),
      inventaire: z.array(z.object({ code: z.string(), nom: z.string().nullable(), quantite: z.number(), empilable: z.boolean(), max: z.number().nullable() })),
      historique: z.array(z.object({
        id: z.number(), type: z.string(), code: z.string(), delta: z.number(), apres: z.number(),
        raison: z.string(), ref: z.record(z.string(), z.unknown()), cree_le: date,
      })),
    }),
    connexions: z.array(z.object({ cree_le: date, reussie: z.boolean().nullable(), reseau: z.string().nullable() })),
    reinitialisations: z.array(z.object({ cree_le: date, expire_le: maybeDate, utilise_le: maybeDate })),
  }),
});

export default defineRoute({
  method: 'get',
  path: '/players/me/export',
  tag: 'Players',
  summary: 'Every datum Manette holds about the logged-in player (GDPR article 15)',
  description: 'Profile (with the Google id and any suspension), sessions (dates only, never a token), '
    + 'the rows the player owns in every table, files with their content, the avatar (base64), scores, '
    + 'ratings, the matches taken part in with the player’s own actions, the economy (wallet, inventory, '
    + 'whole ledger), login attempts and password reset requests. Never a password hash, token or device hash.',
  auth: 'player',
  response: PlayerExport,
  handler: ({ ctx, deps }) => passApi(deps.pool, 'players_export', ctx),
});
