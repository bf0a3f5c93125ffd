// POST /players/login/steam and POST /players/login/discord (and linking a guest with them),
// over real HTTP, with Steam's Web API and Discord's OAuth2 played by local servers that
// answer as their documentation says (test/support/steam-server.ts, test/support/discord-server.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { serveSteam, type SteamServer } from './support/steam-server.js';
import { pkcePair, serveDiscord, type DiscordServer } from './support/discord-server.js';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { createClient, createPkcePair, ManetteError } from '../sdk/src/index.js';

let app: TestApp;
let steam: SteamServer;
let discord: DiscordServer;
let api: ReturnType<typeof client>;
let apiOther: ReturnType<typeof client>;
let apiNone: ReturnType<typeof client>;
let gameKey: string;
const logs: string[] = [];

const APP_ID = 480;
const IDENTITY = 'manette';
const DISCORD = { client_id: '1100000000000000001', client_secret: 'discord-secret-1' };
const DISCORD_OTHER = { client_id: '1100000000000000002', client_secret: 'discord-secret-2' };
const REDIRECT = 'https://jeu.example/discord';

beforeAll(async () => {
  steam = await serveSteam({ testTickets: true });
  discord = await serveDiscord([DISCORD, { ...DISCORD_OTHER }]);
  app = await startTestApp({
    MANETTE_STEAM_API_URL: steam.url,
    MANETTE_STEAM_PUBLISHER_KEY: steam.publisherKey,
    // App 481's key is another publisher's, and wrong here: Steam refuses it.
    MANETTE_STEAM_PUBLISHER_KEYS: JSON.stringify({ 481: 'CLE-FAUSSE' }),
    MANETTE_DISCORD_API_URL: discord.apiUrl,
    MANETTE_DISCORD_CLIENT_SECRET: DISCORD.client_secret,
    MANETTE_DISCORD_CLIENT_SECRETS: JSON.stringify({ [DISCORD_OTHER.client_id]: 'secret-faux' }),
  }, undefined, { logs });
  gameKey = await app.applyGame(minimalGame('jeu-steam', {
    connexions: { steam: { app_id: APP_ID, identite: IDENTITY }, discord: { client_id: DISCORD.client_id } },
  }));
  api = client(app.baseUrl, gameKey);
  apiOther = client(app.baseUrl, await app.applyGame(minimalGame('jeu-steam-481', {
    connexions: { steam: { app_id: 481 }, discord: { client_id: DISCORD_OTHER.client_id } },
  })));
  apiNone = client(app.baseUrl, await app.applyGame(minimalGame('jeu-sans-plateforme')));
});
afterAll(async () => {
  await app?.close();
  await steam?.close();
  await discord?.close();
});

/** Every reply of this file goes through here: never a 5xx but the documented 503 `fournisseur_non_configure`. */
async function seen(r: Reply): Promise<Reply> {
  if (r.body?.error !== 'fournisseur_non_configure') expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  return r;
}
function session(r: Reply) {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.token).toMatch(/^pt_/);
  return r.body as { token: string; data: { joueur: { id: string; pseudo: string; email: string | null; invite: boolean } } };
}
function expectError(r: Reply, status: number, error: string, reason?: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ ok: false, error, ...(reason ? { reason } : {}) });
  expect(typeof r.body.message).toBe('string');
}
async function counts() {
  const [row] = await app.sql<{ players: string; identities: string; used: string }>(
    `select (select count(*) from manette.players) as players,
            (select count(*) from manette.player_identities) as identities,
            (select count(*) from manette.used_tokens) as used`);
  return row!;
}
const steamLogin = async (ticket: string, c = api) => seen(await c.post('/players/login/steam', { ticket }));
const discordLogin = async (body: Record<string, unknown>, c = api) => seen(await c.post('/players/login/discord', body));
const ticketFor = (steamid: string, extra: Partial<Parameters<SteamServer['mint']>[0]> = {}) =>
  steam.mint({ steamid, appid: APP_ID, identity: IDENTITY, ...extra });
let nextId = 76561197960287930n;
const newSteamId = () => String(nextId++);
let nextSnowflake = 80351110224678912n;
const newDiscordUser = (global_name: string | null = null) => ({ id: String(nextSnowflake++), username: `user${nextSnowflake}`, global_name });
/** A code as a web page gets it: with PKCE and a redirect. */
function webCode(user: ReturnType<typeof newDiscordUser>, clientId = DISCORD.client_id) {
  const { verifier, challenge } = pkcePair();
  return { code: discord.authorize({ client_id: clientId, user, redirect_uri: REDIRECT, code_challenge: challenge }), code_verifier: verifier, redirect_uri: REDIRECT };
}

describe('Steam', () => {
  it('a valid ticket signs in; the same Steam account again is the same player', async () => {
    const steamid = newSteamId();
    const first = session(await steamLogin(ticketFor(steamid)));
    expect(first.data.joueur).toMatchObject({ email: null, invite: false });
    const again = session(await steamLogin(ticketFor(steamid)));
    expect(again.data.joueur.id).toBe(first.data.joueur.id);
    expect(await app.sql('select issuer, subject, fournisseur from manette.player_identities where player_id = $1', [first.data.joueur.id]))
      .toEqual([{ issuer: 'steam', subject: steamid, fournisseur: 'steam' }]);
    // Steam was asked as documented: the publisher key, the app id, the hex ticket, the identity.
    const q = steam.requests.at(-1)!;
    expect(Object.fromEntries(q)).toMatchObject({ key: steam.publisherKey, appid: String(APP_ID), identity: IDENTITY });
    expect(q.get('ticket')).toMatch(/^[0-9a-f]+$/);
    const me = await seen(await api.get('/players/me', { token: again.token }));
    expect(me.body.data.joueur.id).toBe(first.data.joueur.id);
  });

  it('a ticket sent as {fournisseur: "steam", jeton} to /players/login/jeton is the same login', async () => {
    const steamid = newSteamId();
    const a = session(await steamLogin(ticketFor(steamid)));
    const b = session(await seen(await api.post('/players/login/jeton', { fournisseur: 'steam', jeton: ticketFor(steamid) })));
    expect(b.data.joueur.id).toBe(a.data.joueur.id);
  });

  it('a borrowed game (Family Sharing) is the borrower\'s own player', async () => {
    const owner = newSteamId();
    const borrower = newSteamId();
    const r = session(await steamLogin(ticketFor(borrower, { ownersteamid: owner })));
    expect((await app.sql('select subject from manette.player_identities where player_id = $1', [r.data.joueur.id]))[0]!.subject).toBe(borrower);
  });

  it.each([
    ['an expired (cancelled) ticket', () => { const t = ticketFor(newSteamId()); steam.expire(t); return t; }, 401, 'invalid_credentials', undefined],
    ['a ticket Steam never issued', () => 'ab'.repeat(120), 401, 'invalid_credentials', undefined],
    ['another app\'s ticket', () => ticketFor(newSteamId(), { appid: 730 }), 401, 'invalid_credentials', undefined],
    ['a ticket made for another identity', () => ticketFor(newSteamId(), { identity: 'autre-service' }), 401, 'invalid_credentials', undefined],
    ['a VAC-banned account', () => ticketFor(newSteamId(), { vacbanned: true }), 403, 'compte_steam_banni', 'vac'],
    ['a publisher-banned account', () => ticketFor(newSteamId(), { publisherbanned: true }), 403, 'compte_steam_banni', 'editeur'],
  ] as Array<[string, () => string, number, string, string | undefined]>)('%s is refused and creates nothing', async (_what, make, status, error, reason) => {
    const ticket = make();
    const before = await counts();
    expectError(await steamLogin(ticket), status, error, reason);
    expect(await counts()).toEqual(before);
  });

  it('a replayed ticket is refused and creates nothing; only its hash is kept', async () => {
    const ticket = ticketFor(newSteamId());
    session(await steamLogin(ticket));
    const before = await counts();
    expectError(await steamLogin(ticket), 401, 'invalid_credentials');
    expectError(await steamLogin(ticket.toUpperCase()), 401, 'invalid_credentials');
    expect(await counts()).toEqual(before);
    const stored = await app.sql<{ n: string }>(`select count(*) as n from manette.used_tokens where encode(token_hash, 'hex') like '%' || $1 || '%'`, [ticket.slice(0, 16)]);
    expect(stored[0]!.n).toBe('0');
  });

  it('a ticket that is not hex is validation_failed and never reaches Steam', async () => {
    const sent = steam.requests.length;
    expectError(await steamLogin('pas-un-ticket'), 400, 'validation_failed');
    expectError(await steamLogin('abc'), 400, 'validation_failed');
    expect(steam.requests.length).toBe(sent);
  });

  it('a game without connexions.steam is fournisseur_inconnu; a server whose key Steam refuses is fournisseur_non_configure', async () => {
    const before = await counts();
    expectError(await steamLogin(ticketFor(newSteamId()), apiNone), 400, 'fournisseur_inconnu');
    expectError(await steamLogin(steam.mint({ steamid: newSteamId(), appid: 481 }), apiOther), 503, 'fournisseur_non_configure', 'steam');
    expect(await counts()).toEqual(before);
    // The publisher keys are never written to the log.
    expect(logs.join('\n')).toContain('Steam refused the publisher key');
    expect(logs.join('\n')).not.toContain('CLE-FAUSSE');
    expect(logs.join('\n')).not.toContain(steam.publisherKey);
  });

  it('a guest links its Steam account; a Steam account already a player is identity_taken', async () => {
    const guest = session(await seen(await api.post('/players/invite', { appareil_id: randomUUID() })));
    expect(guest.data.joueur.invite).toBe(true);
    const steamid = newSteamId();
    const linked = await seen(await api.post('/players/lier', { fournisseur: 'steam', jeton: ticketFor(steamid) }, { token: guest.token }));
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body.data.joueur).toMatchObject({ id: guest.data.joueur.id, invite: false });
    expect(session(await steamLogin(ticketFor(steamid))).data.joueur.id).toBe(guest.data.joueur.id);

    const other = session(await seen(await api.post('/players/invite', { appareil_id: randomUUID() })));
    const before = await counts();
    expectError(await api.post('/players/lier', { fournisseur: 'steam', jeton: ticketFor(steamid) }, { token: other.token }), 409, 'identity_taken');
    expect(await counts()).toEqual(before);
    const [row] = await app.sql<{ guest: boolean }>('select guest from manette.players where id = $1', [other.data.joueur.id]);
    expect(row!.guest).toBe(true);
  });
});

describe('Discord', () => {
  it('a code with PKCE signs in; the same Discord account again is the same player, named after it', async () => {
    const user = newDiscordUser('Zoé Martin');
    const first = session(await discordLogin(webCode(user)));
    expect(first.data.joueur).toMatchObject({ pseudo: 'Zoe_Martin', email: null, invite: false });
    const again = session(await discordLogin(webCode(user)));
    expect(again.data.joueur.id).toBe(first.data.joueur.id);
    expect(await app.sql('select issuer, subject, fournisseur from manette.player_identities where player_id = $1', [first.data.joueur.id]))
      .toEqual([{ issuer: 'discord', subject: user.id, fournisseur: 'discord' }]);
    // The exchange was form-encoded with what Discord documents; Discord's tokens are nowhere in the database.
    const form = discord.tokenRequests.at(-1)!;
    expect(Object.fromEntries(form)).toMatchObject({ grant_type: 'authorization_code', client_id: DISCORD.client_id, client_secret: DISCORD.client_secret, redirect_uri: REDIRECT });
    expect(form.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    const dump = JSON.stringify(await app.sql(`select (select json_agg(p) from manette.players p) as p, (select json_agg(s) from manette.sessions s) as s, (select json_agg(u) from manette.used_tokens u) as u`));
    for (const t of discord.accessTokens) expect(dump).not.toContain(t);
  });

  it('a Discord Activity\'s code (authorize: no redirect_uri, no PKCE) signs in', async () => {
    const user = newDiscordUser();
    const r = session(await discordLogin({ code: discord.authorize({ client_id: DISCORD.client_id, user }) }));
    expect(r.data.joueur.pseudo).toBe(user.username);
  });

  it.each([
    ['an unknown code', () => ({ code: 'code-inconnu' })],
    ['an expired code', () => { const c = webCode(newDiscordUser()); discord.expire(c.code); return c; }],
    ['a wrong PKCE verifier', () => ({ ...webCode(newDiscordUser()), code_verifier: pkcePair().verifier })],
    ['no verifier for a code with a challenge', () => { const { code_verifier: _v, ...c } = webCode(newDiscordUser()); return c; }],
    ['another redirect_uri', () => ({ ...webCode(newDiscordUser()), redirect_uri: 'https://evil.example/cb' })],
    ['another application\'s code', () => webCode(newDiscordUser(), DISCORD_OTHER.client_id)],
  ] as Array<[string, () => Record<string, unknown>]>)('%s is invalid_credentials and creates nothing', async (_what, make) => {
    const body = make();
    const before = await counts();
    expectError(await discordLogin(body), 401, 'invalid_credentials');
    expect(await counts()).toEqual(before);
  });

  it('a reused code is refused (by Discord) and creates nothing', async () => {
    const c = webCode(newDiscordUser());
    session(await discordLogin(c));
    const before = await counts();
    expectError(await discordLogin(c), 401, 'invalid_credentials');
    expect(await counts()).toEqual(before);
  });

  it('bad bodies are validation_failed; a game without connexions.discord is fournisseur_inconnu; a refused client secret fournisseur_non_configure', async () => {
    const before = await counts();
    expectError(await discordLogin({}), 400, 'validation_failed');
    expectError(await discordLogin({ code: 'x', code_verifier: 'court' }), 400, 'validation_failed');
    expectError(await discordLogin({ code: 'x', redirect_uri: 'pas une url' }), 400, 'validation_failed');
    expectError(await discordLogin(webCode(newDiscordUser()), apiNone), 400, 'fournisseur_inconnu');
    expectError(await discordLogin(webCode(newDiscordUser(), DISCORD_OTHER.client_id), apiOther), 503, 'fournisseur_non_configure', 'discord');
    // Discord gives codes, not tokens: /players/login/jeton says where to go.
    expectError(await api.post('/players/login/jeton', { fournisseur: 'discord', jeton: 'x' }), 400, 'validation_failed');
    expect(await counts()).toEqual(before);
    expect(logs.join('\n')).not.toContain('secret-faux');
    expect(logs.join('\n')).not.toContain(DISCORD.client_secret);
  });

  it('a guest links its Discord account; one already a player is identity_taken', async () => {
    const guest = session(await seen(await api.post('/players/invite', { appareil_id: randomUUID() })));
    const user = newDiscordUser();
    const linked = await seen(await api.post('/players/lier', { fournisseur: 'discord', ...webCode(user) }, { token: guest.token }));
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body.data.joueur).toMatchObject({ id: guest.data.joueur.id, invite: false });
    expect(session(await discordLogin(webCode(user))).data.joueur.id).toBe(guest.data.joueur.id);

    const other = session(await seen(await api.post('/players/invite', { appareil_id: randomUUID() })));
    const before = await counts();
    expectError(await api.post('/players/lier', { fournisseur: 'discord', ...webCode(user) }, { token: other.token }), 409, 'identity_taken');
    // A code without fournisseur discord, or with a jeton too, is validation_failed.
    expectError(await api.post('/players/lier', { fournisseur: 'steam', ...webCode(user) }, { token: other.token }), 400, 'validation_failed');
    expect(await counts()).toEqual(before);
  });
});

describe('the game file', () => {
  it.each([
    [{ steam: { app_id: 0 } }, 'connexions.steam.app_id'],
    [{ steam: { app_id: 480, cle: 'x' } }, 'connexions.steam'],
    [{ steam: { app_id: 480, identite: 'a b' } }, 'connexions.steam.identite'],
    [{ discord: { client_id: 'abc' } }, 'connexions.discord.client_id'],
    [{ discord: { emetteur: 'https://discord.com', audience: 'x', jwks_url: 'https://discord.com/api/oauth2/keys' } }, 'connexions.discord'],
    [{ autre: { emetteur: 'steam', audience: 'x', jwks_url: 'https://idp.example/jwks' } }, 'connexions.autre.emetteur'],
  ])('%j is refused, naming %s', async (connexions, field) => {
    await expect(app.applyGame(minimalGame('jeu-refuse', { connexions }))).rejects.toThrow(field);
  });
});

describe('deletion, test tickets and the browser SDK', () => {
  it('a Steam player deletes its account with a fresh ticket ({fournisseur: "steam", jeton})', async () => {
    const steamid = newSteamId();
    const r = session(await steamLogin(ticketFor(steamid)));
    expectError(await api.post('/players/me/supprimer', {}, { token: r.token }), 401, 'invalid_credentials');
    const gone = await seen(await api.post('/players/me/supprimer', { fournisseur: 'steam', jeton: ticketFor(steamid) }, { token: r.token }));
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect(await app.sql('select 1 from manette.player_identities where player_id = $1', [r.data.joueur.id])).toEqual([]);
    // The same Steam account later is a new player.
    expect(session(await steamLogin(ticketFor(steamid))).data.joueur.id).not.toBe(r.data.joueur.id);
  });

  it('a Discord player deletes its account with a fresh code; the repeat of a lost answer is the same 200', async () => {
    const user = newDiscordUser();
    const r = session(await discordLogin(webCode(user)));
    // Another Discord user's code does not confirm it, and changes nothing.
    expectError(await api.post('/players/me/supprimer', { fournisseur: 'discord', ...webCode(newDiscordUser()) }, { token: r.token }), 401, 'invalid_credentials');
    expect(await app.sql('select 1 from manette.players where id = $1', [r.data.joueur.id])).toHaveLength(1);
    const proof = { fournisseur: 'discord', ...webCode(user) };
    const gone = await seen(await api.post('/players/me/supprimer', proof, { token: r.token }));
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    const exchanges = discord.tokenRequests.length;
    const again = await seen(await api.post('/players/me/supprimer', proof, { token: r.token }));
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(discord.tokenRequests.length).toBe(exchanges);
    expect(await app.sql('select 1 from manette.player_identities where player_id = $1', [r.data.joueur.id])).toEqual([]);
    expect(session(await discordLogin(webCode(user))).data.joueur.id).not.toBe(r.data.joueur.id);
    // A game without Discord: fournisseur_inconnu.
    const guest = session(await seen(await apiNone.post('/players/invite', {})));
    expectError(await apiNone.post('/players/me/supprimer', { fournisseur: 'discord', code: 'x' }, { token: guest.token }), 400, 'fournisseur_inconnu');
  });

  it('the stand-in\'s test tickets (npm start with MANETTE_STEAM_API_URL=twin) sign in, once each', async () => {
    const handed = await (await fetch(`${steam.url}/test-ticket?steamid=76561198000000001`)).json() as { ticket: string };
    const a = session(await steamLogin(handed.ticket));
    const hex = (t: string) => Buffer.from(t).toString('hex');
    const b = session(await steamLogin(hex(`manette-test-ticket:76561198000000001:${randomUUID()}`)));
    expect(b.data.joueur.id).toBe(a.data.joueur.id);
    expectError(await steamLogin(handed.ticket), 401, 'invalid_credentials');
    expectError(await steamLogin(hex('manette-test-ticket:123:x')), 401, 'invalid_credentials');
  });

  it('auth.loginWithSteam, auth.loginWithDiscord with createPkcePair, auth.link with a Discord code', async () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } };
    const m = createClient({ baseUrl: app.baseUrl, apiKey: gameKey, storage });
    const steamid = newSteamId();
    const j = await m.auth.loginWithSteam(ticketFor(steamid));
    expect(m.auth.player?.id).toBe(j.id);
    await m.auth.logout();

    const { codeVerifier, codeChallenge } = await createPkcePair();
    expect(codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    const user = newDiscordUser('Sdk Discord');
    const code = discord.authorize({ client_id: DISCORD.client_id, user, redirect_uri: REDIRECT, code_challenge: codeChallenge });
    const d = await m.auth.loginWithDiscord({ code, codeVerifier, redirectUri: REDIRECT });
    expect(d.pseudo).toBe('Sdk_Discord');
    await m.auth.logout();

    await m.auth.guest({ appareilId: false });
    const other = newDiscordUser();
    const pair = await createPkcePair();
    const linked = await m.auth.link({ fournisseur: 'discord', code: discord.authorize({ client_id: DISCORD.client_id, user: other, code_challenge: pair.codeChallenge }), codeVerifier: pair.codeVerifier });
    expect(linked.invite).toBe(false);
    const err = await m.auth.loginWithSteam(ticketFor(newSteamId(), { vacbanned: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManetteError);
    expect((err as ManetteError).code).toBe('compte_steam_banni');
  });
});
