// Password reset by mail (docs/accounts.md, "Password reset"), over real HTTP and real
// SMTP: the façade sends through nodemailer to the twin's mail catcher on the loopback,
// and the codes are read out of the mails it received.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../twin/mail/catcher.js';
import { parseGameConfig } from '../api/config/game-config.js';

let app: TestApp;
let catcher: MailCatcher;
let key: string;
let keyOwn: string;
let api: ReturnType<typeof client>;
let own: ReturnType<typeof client>;

const PASSWORD = 'motdepasse-solide';

beforeAll(async () => {
  catcher = await startMailCatcher();
  // Behind a proxy (TRUST_PROXY=1): X-Forwarded-For gives each request its client address,
  // so the limit per address is tested where meant and stays out of the way elsewhere.
  app = await startTestApp({ MANETTE_SMTP_URL: catcher.url, TRUST_PROXY: '1' });
  key = await app.applyGame(minimalGame('reset-a', { nom: 'Les Tours' }));
  keyOwn = await app.applyGame(minimalGame('reset-b', {
    nom: 'Le Donjon',
    courriels: {
      expediteur: 'Le Donjon <donjon@jeu.test>',
      reinitialisation: {
        sujet: { fr: 'Donjon : ton code {code}', en: 'Dungeon: your code {code}' },
        texte: { en: 'Hi {pseudo}, {code} opens {jeu} again for {minutes} minutes. {pseudo}' },
      },
    },
  }));
  api = client(app.baseUrl, key);
  own = client(app.baseUrl, keyOwn);
});
afterAll(async () => {
  await app?.close();
  await catcher?.stop();
});

let addressCounter = 0;
/** A client address of its own for each request unless given. */
const nextAddress = () => `198.51.${100 + Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`;

function forgot(via: ReturnType<typeof client>, email: unknown, opts: { from?: string; lang?: string } = {}) {
  return via.post('/players/mot-de-passe/oubli', { email }, {
    headers: { 'x-forwarded-for': opts.from ?? nextAddress(), ...(opts.lang ? { 'accept-language': opts.lang } : {}) },
  });
}
function reset(via: ReturnType<typeof client>, body: Record<string, unknown>, from = nextAddress()) {
  return via.post('/players/mot-de-passe/reinitialiser', body, { headers: { 'x-forwarded-for': from } });
}
function login(via: ReturnType<typeof client>, identifiant: string, password: string, from = nextAddress()) {
  return via.post('/players/login', { identifiant, password }, { headers: { 'x-forwarded-for': from } });
}

/** The next mail to `email` not among those already received when `since` was taken. */
function mailTo(email: string, since: ReadonlySet<CaughtMail>): Promise<CaughtMail> {
  return catcher.waitFor((m) => !since.has(m) && m.envelopeTo.includes(email.toLowerCase()));
}
/** Statements as manette_admin (a check constraint of players calls functions `postgres` may not execute). */
const asAdmin = (statements: string) => app.sql(`begin; set local role manette_admin; ${statements}; commit`);
const seen = () => new Set(catcher.messages());
const mailsTo = (email: string) => catcher.messages().filter((m) => m.envelopeTo.includes(email.toLowerCase()));
const codeIn = (mail: CaughtMail) => {
  const m = /\b(\d{8})\b/.exec(mail.text);
  if (!m) throw new Error(`no code in: ${mail.text}`);
  return m[1]!;
};

/** Registers a player and returns its e-mail, id, token and a code asked for it by mail. */
async function playerWithCode(pseudo: string, via = api, lang?: string, from?: string) {
  const reg = await via.register(pseudo);
  const email = `${pseudo.toLowerCase()}@example.test`;
  const before = seen();
  const r = await forgot(via, email, { lang, from });
  expect(r.status).toBe(200);
  const mail = await mailTo(email, before);
  return { email, id: reg.data.joueur.id, token: reg.token, mail, code: codeIn(mail) };
}

describe('POST /players/mot-de-passe/oubli then reinitialiser', () => {
  it('a mail with a code; the reset sets the password, revokes the sessions, and the code works once', async () => {
    const p = await playerWithCode('Zoe');
    expect(p.mail.subject).toBe('Les Tours : ton code pour changer de mot de passe');
    expect(p.mail.text).toContain('Bonjour Zoe,');
    expect(p.mail.text).toContain('valable 30 minutes');
    expect(p.mail.from).toContain('Les Tours');
    expect(p.mail.html).toContain(p.code);
    // A second session, opened by a login, goes too.
    const second = await login(api, 'Zoe', PASSWORD);
    expect(second.status).toBe(200);

    // Only the hash, bound to the player, is stored.
    const rows = await app.sql<{ code_hash: Buffer; row: string }>(
      'select code_hash, row_to_json(r)::text as row from manette.password_resets r where player_id = $1', [p.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.row).not.toContain(p.code);
    expect(rows[0]!.code_hash.equals(createHash('sha256').update(`${p.id}:${p.code}`).digest())).toBe(true);
    expect(rows[0]!.code_hash.equals(createHash('sha256').update(p.code).digest())).toBe(false);

    const r = await reset(api, { email: 'ZOE@example.test', code: p.code, password: 'nouveau-secret-1' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, data: {} });

    for (const token of [p.token, second.body.token as string]) {
      const me = await api.get('/players/me', { token });
      expect(me.status).toBe(401);
      expect(me.body.error).toBe('invalid_token');
    }
    expect((await login(api, 'Zoe', PASSWORD)).status).toBe(401);
    const fresh = await login(api, 'zoe@example.test', 'nouveau-secret-1');
    expect(fresh.status).toBe(200);
    expect((await api.get('/players/me', { token: fresh.body.token })).status).toBe(200);

    // Once only.
    const again = await reset(api, { email: p.email, code: p.code, password: 'encore-autre-2' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ ok: false, error: 'code_invalide' });
    expect((await login(api, 'Zoe', 'nouveau-secret-1')).status).toBe(200);
  });

  it('a code is valid 30 minutes', async () => {
    const p = await playerWithCode('Yann');
    // 29 minutes later: still valid. (The clock is moved in SQL, as the admin; no sleeping.)
    await app.sql(`update manette.password_resets set created_at = created_at - interval '29 minutes',
      expires_at = expires_at - interval '29 minutes' where player_id = $1`, [p.id]);
    expect((await reset(api, { email: p.email, code: p.code, password: 'nouveau-secret-1' })).status).toBe(200);

    const before = seen();
    await forgot(api, p.email);
    const code = codeIn(await mailTo(p.email, before));
    await app.sql(`update manette.password_resets set created_at = created_at - interval '30 minutes 1 second',
      expires_at = expires_at - interval '30 minutes 1 second' where player_id = $1 and used_at is null`, [p.id]);
    const late = await reset(api, { email: p.email, code, password: 'trop-tard-123' });
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('code_invalide');
    expect((await login(api, 'Yann', 'nouveau-secret-1')).status).toBe(200);
  });

  it('a new code replaces the previous one asked from the same address (issue 31: not another address\'s)', async () => {
    const from = nextAddress();
    const p = await playerWithCode('Xena', api, undefined, from);
    const before = seen();
    await forgot(api, p.email, { from });
    const newer = codeIn(await mailTo(p.email, before));
    if (newer === p.code) return; // one chance in 10^8
    const old = await reset(api, { email: p.email, code: p.code, password: 'nouveau-secret-1' });
    expect(old.status).toBe(400);
    expect(old.body.error).toBe('code_invalide');
    expect((await reset(api, { email: p.email, code: newer, password: 'nouveau-secret-1' })).status).toBe(200);
  });

  it('the 5th wrong code from one address ends that address\'s tries on the account, not the code (issue 31)', async () => {
    const p = await playerWithCode('Walt');
    const wrong = (i: number) => String((Number(p.code) + 1 + i) % 100_000_000).padStart(8, '0');
    const guesser = nextAddress();
    for (let i = 0; i < 5; i++) {
      const r = await reset(api, { email: p.email, code: wrong(i), password: 'nouveau-secret-1' }, guesser);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('code_invalide');
    }
    const right = await reset(api, { email: p.email, code: p.code, password: 'nouveau-secret-1' }, guesser);
    expect(right.status).toBe(400);
    expect(right.body.error).toBe('code_invalide');
    const [row] = await app.sql(`select count(*) filter (where wrong_code)::int as wrong, bool_and(used_at is null) as unused
      from manette.password_resets where player_id = $1`, [p.id]);
    expect(row).toMatchObject({ wrong: 5, unused: true });
    expect((await login(api, 'Walt', PASSWORD)).status).toBe(200);
    expect((await reset(api, { email: p.email, code: p.code, password: 'nouveau-secret-1' })).status).toBe(200);
  });

  it('4 wrong codes leave the right one working', async () => {
    const p = await playerWithCode('Vera');
    for (let i = 1; i <= 4; i++) {
      const wrong = String((Number(p.code) + i) % 100_000_000).padStart(8, '0');
      expect((await reset(api, { email: p.email, code: wrong, password: 'nouveau-secret-1' })).status).toBe(400);
    }
    expect((await reset(api, { email: p.email, code: p.code, password: 'nouveau-secret-1' })).status).toBe(200);
  });

  it('10 simultaneous resets with one code: exactly one succeeds', async () => {
    const p = await playerWithCode('Ugo');
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      reset(api, { email: p.email, code: p.code, password: `parallele-${i}-secret` })));
    const ok = replies.flatMap((r, i) => (r.status === 200 ? [i] : []));
    expect(ok).toHaveLength(1);
    expect(replies.filter((r) => r.status === 400 && r.body.error === 'code_invalide')).toHaveLength(9);
    expect((await login(api, 'Ugo', `parallele-${ok[0]}-secret`)).status).toBe(200);
  });

  it('clears the failed logins that locked the account out', async () => {
    const p = await playerWithCode('Tess');
    const from = '203.0.113.77';
    for (let i = 0; i < 10; i++) await login(api, 'Tess', 'mauvais-mdp', from);
    expect((await login(api, 'Tess', PASSWORD, from)).status).toBe(429);
    expect((await reset(api, { email: p.email, code: p.code, password: 'nouveau-secret-1' })).status).toBe(200);
    expect((await login(api, 'Tess', 'nouveau-secret-1', from)).status).toBe(200);
  });
});

describe('the answer tells nothing', () => {
  const headersThatMatter = (r: Reply) => [...r.headers.entries()]
    .filter(([name]) => !['date', 'x-request-id'].includes(name))
    .sort(([a], [b]) => a.localeCompare(b));

  it('is byte-identical for an account\'s address and an unknown one', async () => {
    await api.register('Sam');
    const before = seen();
    const known = await forgot(api, 'sam@example.test');
    const unknown = await forgot(api, 'personne@example.test');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    expect(JSON.stringify(known.body)).toBe('{"ok":true,"data":{}}');
    expect(JSON.stringify(unknown.body)).toBe(JSON.stringify(known.body));
    expect(headersThatMatter(unknown)).toEqual(headersThatMatter(known));
    await mailTo('sam@example.test', before);
    // The unknown address counted (a row without player), and got no mail.
    const [row] = await app.sql<{ n: number }>(`select count(*)::int as n from manette.password_resets
      where player_id is null and client_net is not null and code_hash is null`);
    expect(row!.n).toBeGreaterThanOrEqual(1);
    expect(mailsTo('personne@example.test')).toHaveLength(0);
  });

  it('a deleted player gets nothing; a suspended one gets the mail, and the reset is refused', async () => {
    const gone = await api.register('Rita');
    // The tombstone manette.player_erase leaves: no e-mail, deleted_at set.
    await asAdmin(`update manette.players set email = null, password_hash = null, deleted_at = now() where id = '${gone.data.joueur.id}'`);
    expect((await forgot(api, 'rita@example.test')).body).toEqual({ ok: true, data: {} });

    const p = await playerWithCode('Remi');
    await asAdmin(`update manette.players set suspended_at = now(), suspension_reason = 'test' where id = '${p.id}'`);
    const r = await reset(api, { email: p.email, code: p.code, password: 'nouveau-secret-1' });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ ok: false, error: 'compte_suspendu', jusqu_a: null });
    const [row] = await app.sql('select used_at from manette.password_resets where player_id = $1', [p.id]);
    expect(row!.used_at).toBeNull();
    await asAdmin(`update manette.players set suspended_at = null, suspension_reason = null where id = '${p.id}'`);
    expect((await login(api, 'Remi', PASSWORD)).status).toBe(200);

    // Rita's mail, had there been one, would have come before this one.
    const before = seen();
    await forgot(api, 'remi@example.test');
    await mailTo('remi@example.test', before);
    expect(mailsTo('rita@example.test')).toHaveLength(0);
  });
});

describe('limits, applied silently', () => {
  it('3 mails per account and client address in 15 minutes', async () => {
    await api.register('Quentin');
    const email = 'quentin@example.test';
    const from = nextAddress();
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await forgot(api, email, { from }));
    for (const r of replies) expect(r.body).toEqual({ ok: true, data: {} });
    // A later mail, to someone else, arrives after the first three have.
    await catcher.waitFor(() => mailsTo(email).length === 3);
    const before = seen();
    await api.register('Quentin2');
    await forgot(api, 'quentin2@example.test');
    await mailTo('quentin2@example.test', before);
    expect(mailsTo(email)).toHaveLength(3);
    const [codes] = await app.sql<{ n: number }>(`select count(*)::int as n from manette.password_resets r
      join manette.players p on p.id = r.player_id where p.pseudo = 'Quentin' and r.code_hash is not null`);
    expect(codes!.n).toBe(3);

    // 15 minutes later, a code again.
    await app.sql(`update manette.password_resets r set created_at = r.created_at - interval '15 minutes'
      from manette.players p where p.id = r.player_id and p.pseudo = 'Quentin'`);
    const next = seen();
    await forgot(api, email, { from });
    await mailTo(email, next);
  });

  it('10 requests per client address in 15 minutes, unknown addresses included', async () => {
    await api.register('Paula');
    const from = '192.0.2.50';
    for (let i = 0; i < 10; i++) {
      expect((await forgot(api, `inconnu${i}@example.test`, { from })).body).toEqual({ ok: true, data: {} });
    }
    const blocked = await forgot(api, 'paula@example.test', { from });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toEqual({ ok: true, data: {} });
    // From another address, Paula's mail comes; the blocked one never did.
    const before = seen();
    await forgot(api, 'paula@example.test');
    await mailTo('paula@example.test', before);
    expect(mailsTo('paula@example.test')).toHaveLength(1);
    const [row] = await app.sql<{ n: number }>(
      `select count(*)::int as n from manette.password_resets where client_net = '192.0.2.50'`);
    expect(row!.n).toBe(10);
  });

  it('many simultaneous requests from one address still count 10', async () => {
    const from = '192.0.2.60';
    const replies = await Promise.all(Array.from({ length: 25 }, (_, i) => forgot(api, `foule${i}@example.test`, { from })));
    for (const r of replies) expect(r.status).toBe(200);
    const [row] = await app.sql<{ n: number }>(
      `select count(*)::int as n from manette.password_resets where client_net = '192.0.2.60'`);
    expect(row!.n).toBe(10);
  });
});

describe('the mail\'s language and the game\'s own texts', () => {
  it('English with Accept-Language: en', async () => {
    const p = await playerWithCode('Olga', api, 'en-GB,en;q=0.9,fr;q=0.5');
    expect(p.mail.subject).toBe('Les Tours: your code to change your password');
    expect(p.mail.text).toContain('Hello Olga,');
    expect(p.mail.text).toContain('valid for 30 minutes');
  });

  it('the game\'s courriels: sender, subject and text per language, defaults where it has none', async () => {
    const fr = await playerWithCode('Nina', own, 'fr');
    expect(fr.mail.from).toBe('"Le Donjon" <donjon@jeu.test>');
    expect(fr.mail.envelopeFrom).toBe('donjon@jeu.test');
    expect(fr.mail.subject).toBe(`Donjon : ton code ${fr.code}`);
    expect(fr.mail.text).toContain('Bonjour Nina,'); // no French text in the file: the default
    expect(fr.mail.text).toContain('dans Le Donjon');

    const en = await playerWithCode('Marc', own, 'en');
    expect(en.mail.subject).toBe(`Dungeon: your code ${en.code}`);
    expect(en.mail.text).toBe(`Hi Marc, ${en.code} opens Le Donjon again for 30 minutes. Marc`);
  });
});

describe('bad inputs: the envelope, and nothing changes', () => {
  it('oubli', async () => {
    const [before] = await app.sql<{ n: number }>('select count(*)::int as n from manette.password_resets');
    for (const body of [{}, { email: 'pas-une-adresse' }, { email: 42 }, { email: 'a'.repeat(250) + '@x.test' }]) {
      const r = await api.post('/players/mot-de-passe/oubli', body, { headers: { 'x-forwarded-for': nextAddress() } });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ ok: false, error: 'validation_failed' });
      expect(r.body.details[0].champ).toBe('email');
    }
    const raw = await api.request('POST', '/players/mot-de-passe/oubli', { raw: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
    expect(raw.body.ok).toBe(false);
    const noKey = await api.post('/players/mot-de-passe/oubli', { email: 'zoe@example.test' }, { key: null });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error).toBe('missing_key');
    const badKey = await api.post('/players/mot-de-passe/oubli', { email: 'zoe@example.test' }, { key: 'sk_live_' + 'x'.repeat(40) });
    expect(badKey.status).toBe(401);
    expect(badKey.body.error).toBe('invalid_key');
    const [after] = await app.sql<{ n: number }>('select count(*)::int as n from manette.password_resets');
    expect(after!.n).toBe(before!.n);
  });

  it('reinitialiser', async () => {
    const p = await playerWithCode('Lina');
    const bad: [Record<string, unknown>, string][] = [
      [{ email: p.email, code: 'abcdefgh', password: 'nouveau-secret-1' }, 'code'],
      [{ email: p.email, code: '1234567', password: 'nouveau-secret-1' }, 'code'],
      [{ email: p.email, code: p.code, password: 'court' }, 'password'],
      [{ email: p.email, code: p.code, password: 'x'.repeat(129) }, 'password'],
      [{ email: 'pas-une-adresse', code: p.code, password: 'nouveau-secret-1' }, 'email'],
      [{ code: p.code, password: 'nouveau-secret-1' }, 'email'],
      [{ email: p.email, code: Number(p.code), password: 'nouveau-secret-1' }, 'code'],
    ];
    for (const [body, champ] of bad) {
      const r = await reset(api, body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ ok: false, error: 'validation_failed' });
      expect(r.body.details.map((d: { champ: string }) => d.champ)).toContain(champ);
    }
    const en = await api.post('/players/mot-de-passe/reinitialiser', { email: p.email, code: 'abc', password: 'nouveau-secret-1' },
      { headers: { 'accept-language': 'en' } });
    expect(en.body.details[0].message).toBe('8-digit code expected');
    // Unknown e-mail: the same answer as a wrong code.
    const unknown = await reset(api, { email: 'personne@example.test', code: p.code, password: 'nouveau-secret-1' });
    const wrongCode = await reset(api, { email: p.email, code: String((Number(p.code) + 1) % 1e8).padStart(8, '0'), password: 'nouveau-secret-1' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toBe(JSON.stringify(wrongCode.body));
    expect(unknown.body).toEqual({ ok: false, error: 'code_invalide', message: 'Code invalide ou expiré.' });
    // Another game's code: its players are not this game's.
    expect((await reset(own, { email: p.email, code: p.code, password: 'nouveau-secret-1' })).body.error).toBe('code_invalide');

    const [row] = await app.sql(`select count(*) filter (where wrong_code)::int as wrong, bool_and(used_at is null) as unused
      from manette.password_resets where player_id = $1`, [p.id]);
    expect(row).toMatchObject({ wrong: 1, unused: true });
    expect((await login(api, 'Lina', PASSWORD)).status).toBe(200);
    expect((await reset(api, { email: p.email, code: p.code, password: 'nouveau-secret-1' })).status).toBe(200);
  });
});

describe('the game file\'s courriels', () => {
  it('is checked: an address as sender, texts as a string or {fr, en}, no other key', () => {
    const parse = (courriels: unknown) => parseGameConfig({ jeu: 'x', nom: 'X', courriels }, 'en');
    expect(parse({ expediteur: 'Le Donjon <a@b.test>', reinitialisation: { sujet: 'S {code}', texte: { en: 'T {code}' } } }).ok).toBe(true);
    expect(parse({ expediteur: 'a@b.test' }).ok).toBe(true);
    expect(parse({ expediteur: 'pas une adresse' })).toEqual({ ok: false,
      error: 'invalid game file:\n  courriels.expediteur: address expected: "Name <address@domain>" or "address@domain"' });
    expect(parse({ reinitialisation: { sujet: { de: 'Code' } } }).ok).toBe(false);
    expect(parse({ reinitialisation: { corps: 'x' } }).ok).toBe(false);
    expect(parse({ autre: {} }).ok).toBe(false);
  });
});
