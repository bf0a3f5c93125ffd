// The game config file (docs/api.md, Game config file), validated whole before anything is
// written. Later capabilities read their part of it from manette.games.config.
import { z } from 'zod';
import { RESERVED_COLUMNS } from '../routes/tables/schemas.js';
import { detailMessageFor, type Lang } from '../http/messages.js';

const Slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'minuscules, chiffres, _ et -, 63 caractères au plus');
const Name = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'lettres, chiffres et _, sans commencer par un chiffre');
const Timestamp = z.iso.datetime({ offset: true });

/** A player-facing text given per language: `{"fr": "Or", "en": "Gold"}`, one of them at least. */
export type TextsPerLanguage = { fr?: string; en?: string };
/** A player-facing text of the game file (docs/api.md, Texts per language). */
export type GameText = string | TextsPerLanguage;

const TEXT_EXPECTED = 'texte attendu : une chaîne, ou un objet par langue {"fr": "…", "en": "…"}';
const TEXT_LANGUAGE_NEEDED = 'au moins une langue : fr ou en';

/**
 * A player-facing text: a string (the same in every language, as before), or one per
 * language, `{"fr": "Or", "en": "Gold"}` (fr, en or both; each bounded like the string).
 * The API answers it as one string in the player's language (manette.text_in in SQL). A
 * bad shape names the field (`nom`, `nom.fr`), as every other error of the file.
 */
function Text(min: number, max: number) {
  const one = z.string().min(min).max(max);
  const perLanguage = z.strictObject({ fr: one.optional(), en: one.optional() })
    .refine((t) => t.fr !== undefined || t.en !== undefined, TEXT_LANGUAGE_NEEDED);
  return z.unknown().transform((value, ctx): GameText => {
    const schema = typeof value === 'string' ? one
      : value !== null && typeof value === 'object' && !Array.isArray(value) ? perLanguage : undefined;
    if (!schema) {
      ctx.addIssue({ code: 'custom', message: TEXT_EXPECTED });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path } as never);
    return z.NEVER;
  });
}

/** The text of `lang` of a game file's text ('en', else French), the other language when it is missing (as manette.text_in). */
export function textIn(text: unknown, lang: 'fr' | 'en'): string | undefined {
  if (typeof text === 'string') return text;
  if (!text || typeof text !== 'object') return undefined;
  const t = text as Record<string, unknown>;
  const pick = (l: string) => (typeof t[l] === 'string' ? t[l] as string : undefined);
  return lang === 'en' ? pick('en') ?? pick('fr') : pick('fr') ?? pick('en');
}

const Column = z.strictObject({
  type: z.enum(['text', 'integer', 'number', 'boolean', 'json', 'timestamp']),
  requis: z.boolean().default(false),
});

const Table = z.strictObject({
  colonnes: z.record(Name, Column).refine((c) => Object.keys(c).length >= 1 && Object.keys(c).length <= 64,
    'de 1 à 64 colonnes')
    .refine((c) => !Object.keys(c).some((k) => RESERVED_COLUMNS.includes(k)),
      `${RESERVED_COLUMNS.join(', ')} sont réservés`)
    // A query parameter with one of these names is invalid_query (api/app.ts): no filter on them.
    .refine((c) => !Object.keys(c).some((k) => ['__proto__', 'constructor', 'prototype'].includes(k)),
      'nom réservé (__proto__, constructor, prototype)'),
  lecture: z.enum(['public', 'joueurs', 'proprietaire']),
  ecriture: z.enum(['joueurs', 'serveur']),
});

const Leaderboard = z.strictObject({
  nom: z.string().min(1).max(100).optional(),
  ordre: z.enum(['desc', 'asc']).default('desc'),
  operateur: z.enum(['meilleur', 'dernier', 'somme']).default('meilleur'),
  reinitialisation: z.enum(['aucune', 'quotidienne', 'hebdomadaire', 'mensuelle']).default('aucune'),
  valeur_min: z.number().finite().optional(),
  valeur_max: z.number().finite().optional(),
}).refine((l) => l.valeur_min === undefined || l.valeur_max === undefined || l.valeur_min <= l.valeur_max,
  { message: 'valeur_min doit être inférieure ou égale à valeur_max', path: ['valeur_min'] });

// The economy (docs/economy.md): codes of currencies and objects, integer amounts.
const EconomyCode = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/);
const MAX_CAP = 10 ** 15;
const MAX_AMOUNT = 10 ** 12;
const Amount = z.number().int().min(1).max(MAX_AMOUNT);
const Currency = z.strictObject({
  nom: Text(1, 200),
  // Optional without default, so a file is stored as written (0 when absent, in SQL).
  depart: z.number().int().min(0).max(MAX_CAP).optional(),
  max: z.number().int().min(1).max(MAX_CAP).optional(),
}).refine((c) => c.max === undefined || (c.depart ?? 0) <= c.max,
  { message: 'depart doit être inférieur ou égal à max', path: ['depart'] });
const Item = z.strictObject({
  nom: Text(1, 200),
  empilable: z.boolean().optional(),   // true when absent
  max: z.number().int().min(1).max(MAX_CAP).optional(),
});
// What a purchase or a reward grants: at least one entry.
const Contents = z.strictObject({
  monnaies: z.record(EconomyCode, Amount).optional(),
  objets: z.record(EconomyCode, Amount).optional(),
}).refine((c) => Object.keys(c.monnaies ?? {}).length + Object.keys(c.objets ?? {}).length >= 1,
  'au moins une monnaie ou un objet');

const Article = z.strictObject({
  code: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
  nom: Text(1, 200),
  description: Text(0, 2000).optional(),
  prix: z.number().finite().min(0).max(MAX_AMOUNT),
  devise: z.string().min(1).max(32),
  image_url: z.url().optional(),
  metadonnees: z.record(z.string(), z.unknown()).optional(),
  actif: z.boolean().default(true),
  ordre: z.number().int().min(-2147483648).max(2147483647).default(0),
  debut: Timestamp.optional(),
  fin: Timestamp.optional(),
  contenu: Contents.optional(),
}).refine((a) => a.debut === undefined || a.fin === undefined || Date.parse(a.debut) < Date.parse(a.fin),
  { message: 'fin doit être après debut', path: ['fin'] });

const Mode = z.strictObject({
  equipes: z.number().int().min(1).max(16),
  joueurs_par_equipe: z.number().int().min(1).max(64),
  regles: z.string().regex(/^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/, 'nom de jeu de règles ou de fonction plpgsql'),
  elo_ecart_initial: z.number().finite().min(0).default(100),
  elo_elargissement_par_s: z.number().finite().min(0).default(10),
  elo_ecart_max: z.number().finite().min(0).optional(),
  delai_inactivite_s: z.number().int().min(1).max(86400).default(30),
  // A `somme` board of the game credited +1 per winner, by the server (docs/matches.md).
  classement_victoires: Slug.optional(),
  // Any logged-in player of the game may read this mode's matches and join their rooms
  // read-only (docs/matches.md, Spectators); false when absent (kept absent, so existing
  // files are stored unchanged).
  spectateurs: z.boolean().optional(),
  // Server-side rating (docs/matches.md, Server-side rating): `serveur` keeps an Elo rating
  // per player and mode, updated when a match ends, and matchmaking uses it instead of
  // elo_actuel. Optional without default, so a file without them is stored unchanged.
  elo: z.enum(['client', 'serveur']).optional(),
  elo_k: z.number().finite().min(1).max(100).optional(),
  elo_depart: z.number().finite().min(0).max(10000).optional(),
  // Turn timers (docs/matches.md): seconds a player has for a turn, and what an expired
  // turn does (`abandon`: the team on turn loses; `passe`: the next seat plays).
  delai_tour_s: z.number().int().min(1).max(86400).optional(),
  sur_delai: z.enum(['abandon', 'passe']).optional(),
  // Matches that count (docs/matches.md): the actions a match's players must have played
  // before its end (abandonner and the server's own not counted) for that end to pay
  // recompenses, move the server's Elo and credit classement_victoires. 0 when absent (every
  // match counts), kept absent so existing files are stored unchanged.
  actions_min: z.number().int().min(0).max(10000).optional(),
  // Granted to each participant when a match ends (docs/economy.md, Rewards).
  recompenses: z.strictObject({ victoire: Contents.optional(), defaite: Contents.optional(), nul: Contents.optional() }).optional(),
}).refine((m) => m.equipes * m.joueurs_par_equipe >= 1 && m.equipes * m.joueurs_par_equipe <= 128,
  { message: 'une salle compte de 1 à 128 joueurs', path: ['joueurs_par_equipe'] })
  .refine((m) => m.sur_delai === undefined || m.delai_tour_s !== undefined,
    { message: 'sur_delai demande delai_tour_s (sans délai, aucun tour n’expire)', path: ['sur_delai'] });

// A text of a mail: one for every language, or per language ({code} {pseudo} {jeu} {minutes}).
const MailText = z.union([
  z.string().min(1).max(5000),
  z.strictObject({ fr: z.string().min(1).max(5000).optional(), en: z.string().min(1).max(5000).optional() }),
]);

// A provider of `connexions`: an issuer with its audience(s) and key set, or the project's own
// Supabase Auth. The key set is fetched over https (http only to this machine, for tests).
const ProviderName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'nom de fournisseur invalide (1 à 32 caractères : a-z, 0-9, _ -)')
  .refine((n) => n !== 'google', 'Google se déclare avec la clé google ({"client_id": ...})');
const Audience = z.string().min(1).max(255);
const JwksUrl = z.string().max(2048).refine(
  (u) => /^https:\/\/[^\s/?#@]+(\/\S*)?$/.test(u) || /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?(\/\S*)?$/.test(u),
  'URL https attendue (http seulement vers localhost)');
const SupabaseProvider = z.strictObject({ supabase: z.literal(true) });
const JwksProvider = z.strictObject({
  emetteur: z.string().min(1).max(255)
    .refine((i) => i !== 'https://accounts.google.com' && i !== 'accounts.google.com', 'Google se déclare avec la clé google ({"client_id": ...})')
    .refine((i) => i !== 'steam' && i !== 'discord', 'steam et discord sont les émetteurs des connexions steam et discord'),
  audience: z.union([Audience, z.array(Audience).min(1).max(20)]),
  jwks_url: JwksUrl,
});
// Steam and Discord have reserved names (docs/accounts.md, "Steam and Discord"): the app id
// (and the identity of Web API tickets), the OAuth2 client id; their secrets are the server's.
const SteamProvider = z.strictObject({
  app_id: z.number().int().min(1).max(4294967295),
  identite: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, '1 à 64 caractères A-Z a-z 0-9 _ . - attendus (l’identité passée à GetAuthTicketForWebApi)').optional(),
});
const DiscordProvider = z.strictObject({
  client_id: z.string().regex(/^[0-9]{1,32}$/, 'chaîne de 1 à 32 chiffres attendue (l’id client de l’application Discord)'),
});
const PLATFORM_FORMS: Record<string, z.ZodType> = { steam: SteamProvider, discord: DiscordProvider };
// One of the forms, told apart by the name (steam, discord) or the `supabase` key, so an error names the field at fault.
const Provider = (name: string) => z.unknown().superRefine((v, ctx) => {
  const form = PLATFORM_FORMS[name] ?? (v !== null && typeof v === 'object' && 'supabase' in v ? SupabaseProvider : JwksProvider);
  const parsed = form.safeParse(v);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  }
}).transform((v) => v as z.infer<typeof SupabaseProvider> | z.infer<typeof JwksProvider>
  | z.infer<typeof SteamProvider> | z.infer<typeof DiscordProvider>);
export const GameConfig = z.strictObject({
  jeu: Slug,
  nom: Text(1, 200),
  origines: z.array(z.union([z.literal('*'), z.url()])).min(1).default(['*']),
  session_jours: z.number().int().min(1).max(365).default(30),
  // The largest etat_plateau of a match, in bytes (docs/matches.md, Bounded state); 65536
  // when absent (the database's default, so existing files are stored unchanged).
  taille_max_etat: z.number().int().min(1024).max(1024 * 1024).optional(),
  google: z.strictObject({ client_id: z.string().min(1) }).optional(),
  // Identity providers whose signed tokens open a player (docs/accounts.md, "Sign in with any
  // identity token"): POST /players/login/jeton {fournisseur, jeton}. manette_admin.apply_part_connexions
  // checks the same when the file is applied. Optional without default: older files stored unchanged.
  connexions: z.record(ProviderName, z.unknown())
    .superRefine((c, ctx) => {
      for (const [name, v] of Object.entries(c)) {
        const parsed = Provider(name).safeParse(v);
        if (!parsed.success) {
          for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: [name, ...issue.path] });
        }
      }
    })
    .transform((c) => c as Record<string, z.output<ReturnType<typeof Provider>>>)
    .refine((c) => Object.keys(c).length <= 20, 'connexions : 20 fournisseurs au plus')
    .optional(),
  // 'Your turn' notifications (docs/notifications.md): Web Push to the players' subscribed
  // browsers, and/or a signed webhook; the kinds sent (all by default); how long a player marked
  // present stays so. manette_admin.apply_part_notifications checks the same. Optional without default.
  notifications: z.strictObject({
    web_push: z.boolean().optional(),
    webhook: z.strictObject({ url: JwksUrl }).optional(),
    types: z.array(z.enum(['tour', 'partie_trouvee', 'partie_terminee'])).optional(),
    presence_s: z.number().int().min(5).max(3600).optional(),
  }).optional(),
  // Days after which a guest nobody used is erased (docs/accounts.md, Guest play and linking);
  // 90 when absent (the sweep's default), no default here so older files are stored unchanged.
  invites_jours: z.number().int().min(1).max(3650).optional(),
  stockage: z.strictObject({
    taille_max_fichier: z.number().int().min(1).max(2 * 1024 * 1024).default(1024 * 1024),
    quota_joueur: z.number().int().min(1).default(10 * 1024 * 1024),
    // Files per player: empty files cost no bytes against quota_joueur.
    fichiers_max: z.number().int().min(1).max(1_000_000).default(1000),
  }).optional(),
  tables: z.record(Name, Table).default({}),
  classements: z.record(Slug, Leaderboard).default({}),
  boutique: z.array(Article).default([])
    .refine((a) => new Set(a.map((x) => x.code)).size === a.length, 'codes d’articles en double'),
  modes: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), Mode).default({}),
  // The economy (docs/economy.md): optional without default, so older files are stored unchanged.
  monnaies: z.record(EconomyCode, Currency).optional(),
  objets: z.record(EconomyCode, Item).optional(),
  // Match rooms (docs/matches.md): private rooms readable by participants only (with
  // the token of GET /realtime/config), or public ones anyone with the match id may join;
  // diffusion_joueurs lets participants broadcast and track presence in their room.
  // evenements: what an accepted action sends (docs/matches.md, "Events per action"):
  // action_etat (the default), etat (one event carrying the action), etat_aux_autres (that
  // event on the other participants' own channels). Optional without default, so older files
  // are stored unchanged.
  realtime: z.strictObject({
    canaux: z.enum(['prives', 'publics']).default('prives'),
    diffusion_joueurs: z.boolean().default(false),
    evenements: z.enum(['action_etat', 'etat', 'etat_aux_autres']).optional(),
  }).default({ canaux: 'prives', diffusion_joueurs: false }),
  panel: z.strictObject({
    theme: z.record(z.string(), z.string().max(500)).default({}),
    textes: z.record(z.string(), Text(0, 2000)).default({}),
  }).default({ theme: {}, textes: {} }),
  // The password reset mail (docs/accounts.md, "Password reset"): optional without default.
  courriels: z.strictObject({
    expediteur: z.string().max(320).regex(/^(?:[^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/,
      'adresse attendue : « Nom <adresse@domaine> » ou « adresse@domaine »').optional(),
    reinitialisation: z.strictObject({ sujet: MailText.optional(), texte: MailText.optional() }).optional(),
  }).optional(),
}).superRefine((game, ctx) => {
  // Same rules (and texts) as manette_admin.apply_part_victory_leaderboards.
  for (const [code, mode] of Object.entries(game.modes)) {
    const id = mode.classement_victoires;
    if (id === undefined) continue;
    const board = game.classements[id];
    const path = ['modes', code, 'classement_victoires'];
    if (!board) {
      ctx.addIssue({ code: 'custom', path, message: `classement inconnu « ${id} » (il doit être déclaré dans classements)` });
    } else if (board.operateur !== 'somme') {
      ctx.addIssue({ code: 'custom', path, message: `le classement « ${id} » doit avoir l’opérateur somme (il a « ${board.operateur} »)` });
    } else if ((board.valeur_min ?? 1) > 1 || (board.valeur_max ?? 1) < 1) {
      ctx.addIssue({ code: 'custom', path, message: `les bornes du classement « ${id} » doivent admettre 1 (une victoire)` });
    }
  }
  // Same rules (and texts) as manette_admin.apply_part_economy.
  const currencies = game.monnaies ?? {};
  const items = game.objets ?? {};
  const checkContents = (contents: z.infer<typeof Contents> | undefined, at: (string | number)[]) => {
    for (const code of Object.keys(contents?.monnaies ?? {})) {
      if (!Object.hasOwn(currencies, code)) {
        ctx.addIssue({ code: 'custom', path: [...at, 'monnaies', code], message: `monnaie inconnue « ${code} » (elle doit être déclarée dans monnaies)` });
      }
    }
    for (const code of Object.keys(contents?.objets ?? {})) {
      if (!Object.hasOwn(items, code)) {
        ctx.addIssue({ code: 'custom', path: [...at, 'objets', code], message: `objet inconnu « ${code} » (il doit être déclaré dans objets)` });
      }
    }
  };
  game.boutique.forEach((article, i) => {
    checkContents(article.contenu, ['boutique', i, 'contenu']);
    if (Object.hasOwn(currencies, article.devise) && !Number.isInteger(article.prix)) {
      ctx.addIssue({ code: 'custom', path: ['boutique', i, 'prix'], message: `prix entier attendu (la devise « ${article.devise} » est une monnaie du jeu)` });
    }
  });
  for (const [code, mode] of Object.entries(game.modes)) {
    for (const outcome of ['victoire', 'defaite', 'nul'] as const) {
      checkContents(mode.recompenses?.[outcome], ['modes', code, 'recompenses', outcome]);
    }
  }
});

export type GameConfig = z.infer<typeof GameConfig>;

/** This file's own texts above, in English (the API's are translated by detailMessageFor). */
const OWN_DETAILS_EN: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^valeur_min doit être inférieure ou égale à valeur_max$/, () => 'valeur_min must be less than or equal to valeur_max'],
  [/^fin doit être après debut$/, () => 'fin must be after debut'],
  [/^une salle compte de 1 à 128 joueurs$/, () => 'a room holds 1 to 128 players'],
  [/^sur_delai demande delai_tour_s \(sans délai, aucun tour n’expire\)$/, () => 'sur_delai needs delai_tour_s (without a delay, no turn expires)'],
  [/^classement inconnu « (.*) » \(il doit être déclaré dans classements\)$/su, (m) => `unknown leaderboard "${m[1]}" (it must be declared in classements)`],
  [/^le classement « (.*) » doit avoir l’opérateur somme \(il a « (.*) »\)$/su, (m) => `leaderboard "${m[1]}" must have the operator somme (it has "${m[2]}")`],
  [/^les bornes du classement « (.*) » doivent admettre 1 \(une victoire\)$/su, (m) => `the bounds of leaderboard "${m[1]}" must allow 1 (one win)`],
  [/^depart doit être inférieur ou égal à max$/, () => 'depart must be less than or equal to max'],
  [/^adresse attendue : « Nom <adresse@domaine> » ou « adresse@domaine »$/, () => 'address expected: "Name <address@domain>" or "address@domain"'],
  [/^au moins une monnaie ou un objet$/, () => 'at least one currency or object'],
  [/^texte attendu : une chaîne, ou un objet par langue \{"fr": "…", "en": "…"\}$/, () => 'text expected: a string, or an object per language {"fr": "…", "en": "…"}'],
  [/^au moins une langue : fr ou en$/, () => 'at least one language: fr or en'],
  [/^monnaie inconnue « (.*) » \(elle doit être déclarée dans monnaies\)$/su, (m) => `unknown currency "${m[1]}" (it must be declared in monnaies)`],
  [/^objet inconnu « (.*) » \(il doit être déclaré dans objets\)$/su, (m) => `unknown object "${m[1]}" (it must be declared in objets)`],
  [/^prix entier attendu \(la devise « (.*) » est une monnaie du jeu\)$/su, (m) => `integer prix expected (devise "${m[1]}" is a currency of the game)`],
];

function detailText(message: string, lang: Lang): string {
  if (lang === 'en') {
    for (const [re, en] of OWN_DETAILS_EN) {
      const m = re.exec(message);
      if (m) return en(m);
    }
  }
  return detailMessageFor(message, lang);
}

/** A readable error naming the field, or the parsed config. Zod's own texts follow its
 *  configured locale (the CLI sets it); ours are translated like the API's details. */
export function parseGameConfig(raw: unknown, lang: Lang = 'fr'): { ok: true; config: GameConfig } | { ok: false; error: string } {
  // zod drops a `__proto__` key silently (a column would vanish): refused by name first.
  const proto = protoKeyPath(raw);
  if (proto !== undefined) {
    return { ok: false, error: `${lang === 'fr' ? 'fichier de jeu invalide :' : 'invalid game file:'}\n  ${proto}: `
      + detailMessageFor('nom réservé (__proto__, constructor, prototype)', lang) };
  }
  const parsed = GameConfig.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data };
  const root = lang === 'fr' ? '(racine)' : '(root)';
  const lines = parsed.error.issues.map((i) => `  ${i.path.length ? i.path.map(String).join('.') : root}: ${detailText(i.message, lang)}`);
  return { ok: false, error: `${lang === 'fr' ? 'fichier de jeu invalide :' : 'invalid game file:'}\n${lines.join('\n')}` };
}

/** The path (a.b.__proto__) of the first `__proto__` key of a parsed JSON value; undefined if none. */
function protoKeyPath(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    for (const [k, child] of Object.entries(v)) {
      const path = at === '' ? k : `${at}.${k}`;
      if (k === '__proto__') return path;
      stack.push([child, path]);
    }
  }
  return undefined;
}
