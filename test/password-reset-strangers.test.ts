// A stranger cannot block a password reset (issue 31, point 4; docs/accounts.md, "Limits,
// silent"). Before: with only the victim's e-mail, 3 requests exhausted the account's codes
// for 15 minutes, a request replaced the victim's code, and 5 wrong codes killed it,
// repeatably. Now codes and tries are counted per requesting network and account; brute
// force stays bounded. Real HTTP, real SMTP (the twin's catcher), client addresses given by
// X-Forwarded-For (TRUST_PROXY).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../twin/mail/catcher.js';

let app: TestApp;
let catcher: MailCatcher;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  catcher = await startMailCatcher();
  app = await startTestApp({ MANETTE_SMTP_URL: catcher.url, TRUST_PROXY: '1' });
  api = client(app.baseUrl, await app.applyGame(minimalGame('reset-etrangers')));
});
afterAll(async () => {
  await app?.close();
  await catcher?.stop();
});

let n = 0;
const address = () => `203.0.113.${++n}`;
const forgot = (email: string, from: string) => api.post('/players/mot-de-passe/oubli', { email }, { headers: { 'x-forwarded-for': from } });
const reset = (email: string, code: string, from: string) => api.post('/players/mot-de-passe/reinitialiser',
  { email, code, password: 'nouveau-secret-1' }, { headers: { 'x-forwarded-for': from } });
const seen = () => new Set(catcher.messages());
const mailsTo = (email: string) => catcher.messages().filter((m) => m.envelopeTo.includes(email));
const mailTo = (email: string, since: ReadonlySet<CaughtMail>) => catcher.waitFor((m) => !since.has(m) && m.envelopeTo.includes(email));
const codeIn = (mail: CaughtMail) => /\b(\d{8})\b/.exec(mail.text)![1]!;
const wrong = (code: string, i: number) => String((Number(code) + 1 + i) % 100_000_000).padStart(8, '0');
async function victim(pseudo: string) {
  await api.register(pseudo);
  return `${pseudo.toLowerCase()}@example.test`;
}
/** A code mailed to `email`, asked from `from`. */
async function codeFor(email: string, from: string) {
  const before = seen();
  expect((await forgot(email, from)).body).toEqual({ ok: true, data: {} });
  return codeIn(await mailTo(email, before));
}

describe('a stranger with only the e-mail', () => {
  it('exhausts its own requests, not the owner\'s: the owner still gets a code', async () => {
    const email = await victim('Alma');
    const stranger = address();
    for (let i = 0; i < 4; i++) expect((await forgot(email, stranger)).body).toEqual({ ok: true, data: {} });
    await catcher.waitFor(() => mailsTo(email).length === 3);
    const code = await codeFor(email, address());
    expect((await reset(email, code, address())).status).toBe(200);
    // The stranger's 4th request sent nothing.
    expect(mailsTo(email)).toHaveLength(4);
  });

  it('does not replace the owner\'s code by asking for another one', async () => {
    const email = await victim('Boris');
    const owner = address();
    const code = await codeFor(email, owner);
    await codeFor(email, address());
    const r = await reset(email, code, owner);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('loses only its own tries: 5 wrong codes from its address, and the owner\'s code still works', async () => {
    const email = await victim('Cyril');
    const owner = address();
    const code = await codeFor(email, owner);
    const stranger = address();
    for (let i = 0; i < 5; i++) expect((await reset(email, wrong(code, i), stranger)).body.error).toBe('code_invalide');
    // The guessing address is done, even with the right code.
    expect((await reset(email, code, stranger)).body.error).toBe('code_invalide');
    const r = await reset(email, code, owner);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});

describe('what the owner sees of it', () => {
  it('the export lists each row a stranger left, by kind, with when the sweep deletes it', async () => {
    const { token } = await api.register('Delphine');
    const email = 'delphine@example.test';
    const stranger = address();
    for (let i = 0; i < 4; i++) expect((await forgot(email, stranger)).body).toEqual({ ok: true, data: {} });
    await catcher.waitFor(() => mailsTo(email).length === 3);
    const code = codeIn(mailsTo(email).at(-1)!);
    expect((await reset(email, wrong(code, 0), stranger)).body.error).toBe('code_invalide');
    const rows = (await api.get('/players/me/export', { token })).body.data.reinitialisations as
      { type: string; cree_le: string; expire_le: string | null; utilise_le: string | null; supprime_le: string }[];
    expect(new Set(rows.map((r) => r.type))).toEqual(new Set(['code', 'refusee', 'code_faux']));
    for (const r of rows) {
      expect(Date.parse(r.supprime_le) - Date.parse(r.cree_le)).toBe(86_400_000);
      // Only a code expires; a refused request or a wrong code is a count, kept until deleted.
      if (r.type === 'code') expect(Date.parse(r.expire_le!) - Date.parse(r.cree_le)).toBeLessThanOrEqual(30 * 60_000); // a replaced code expired then
      else expect(r.expire_le).toBeNull();
    }
  });
});

describe('brute force stays bounded', () => {
  it('20 wrong codes on an account from anywhere: then only the network that asked for a code can use it', async () => {
    const email = await victim('Dora');
    const owner = address();
    const code = await codeFor(email, owner);
    for (let i = 0; i < 20; i++) expect((await reset(email, wrong(code, i), address())).body.error).toBe('code_invalide');
    // From a network that asked for no code, even the right one is refused now.
    expect((await reset(email, code, address())).body.error).toBe('code_invalide');
    const r = await reset(email, code, owner);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('one network gets 5 wrong tries on an account in 30 minutes, then tries again later', async () => {
    const email = await victim('Emil');
    const owner = address();
    const code = await codeFor(email, owner);
    for (let i = 0; i < 5; i++) expect((await reset(email, wrong(code, i), owner)).body.error).toBe('code_invalide');
    expect((await reset(email, code, owner)).body.error).toBe('code_invalide');
    await app.sql(`update manette.password_resets r set created_at = r.created_at - interval '30 minutes'
      from manette.players p where p.id = r.player_id and p.pseudo = 'Emil' and r.code_hash is null`);
    const r = await reset(email, code, owner);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('a network past 100 wrong codes in 30 minutes, over any accounts, is refused unchecked and writes nothing', async () => {
    const email = await victim('Fanny');
    const guesser = address();
    const code = await codeFor(email, guesser);
    await app.sql(`insert into manette.password_resets (game_id, player_id, client_net, wrong_code)
      select p.game_id, p.id, $1::inet, true from manette.players p, generate_series(1, 100)
      where p.pseudo = 'Alma'`, [guesser]);
    const count = async () => (await app.sql<{ n: number }>(`select count(*)::int as n from manette.password_resets where client_net = $1`, [guesser]))[0]!.n;
    const before = await count();
    expect((await reset(email, wrong(code, 0), guesser)).body.error).toBe('code_invalide');
    expect((await reset(email, code, guesser)).body.error).toBe('code_invalide');
    expect(await count()).toBe(before);
    // The owner's code, from another network, is untouched.
    expect((await reset(email, code, address())).status).toBe(200);
  });
});
