// sync.flush() and the `online` event send a write that waits for its retry timer at once.
// Real Chromium, real HTTP: the page talks to the service through a real HTTP proxy that,
// when told, forwards a table write to the server (which applies it) and then drops the
// connection before the answer reaches the browser: a lost answer.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/harness.js';
import { haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('sdk-flush-browser');

const T = 90_000;

/** Polls `check` (in Node) until true; fails after `ms`. */
async function waitUntil(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!haveBrowser)('sdk sync: flush() and online send a write waiting to retry at once', () => {
  let app: TestApp;
  let browser: Browser;
  let proxy: Server;
  let proxyOrigin: string;
  let key: string;
  /** Table writes to forward and then answer with a dropped connection. */
  let dropAnswers = 0;
  /** Idempotency-Key and server status of every table write that reached the server. */
  const writes: { key: string; status: number; dropped: boolean }[] = [];
  let n = 0;
  const pseudo = (p: string) => `${p}${++n}${Math.random().toString(36).slice(2, 6)}`;

  beforeAll(async () => {
    app = await startTestApp();
    const target = new URL(app.baseUrl);
    proxy = createServer((req, res) => {
      const isWrite = req.method === 'POST' && /\/tables\/inventaire$/.test(req.url ?? '');
      const upstream = httpRequest({
        host: target.hostname, port: target.port, method: req.method, path: req.url,
        headers: { ...req.headers, host: target.host },
      }, (up) => {
        if (isWrite) {
          const dropped = dropAnswers > 0;
          if (dropped) dropAnswers -= 1;
          writes.push({ key: String(req.headers['idempotency-key'] ?? ''), status: up.statusCode ?? 0, dropped });
          if (dropped) {
            // The server has answered (the row exists); the browser never hears it.
            up.resume();
            up.on('end', () => req.socket.destroy());
            return;
          }
        }
        // A fresh connection per request: Chromium silently resends a request whose reused
        // connection closed, which would hide the lost answer.
        res.writeHead(up.statusCode ?? 502, { ...up.headers, connection: 'close' });
        up.pipe(res);
      });
      upstream.on('error', () => req.socket.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyOrigin = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    key = await app.applyGame({
      jeu: 'flushjeu', nom: 'Jeu flush', origines: [proxyOrigin],
      tables: {
        inventaire: {
          colonnes: { item_id: { type: 'text', requis: true } },
          lecture: 'proprietaire', ecriture: 'joueurs',
        },
      },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    proxy?.closeAllConnections();
    await new Promise((r) => proxy?.close(r));
    await app?.close();
  });

  const rowsOf = async (p: string) => Number((await app.sql<{ n: string }>(
    `select count(*)::text n from manette.table_rows r join manette.players j on j.id = r.player_id where j.pseudo = $1`, [p]))[0]!.n);

  /** A page of the proxy's origin (the server's /health) with the SDK, a client `m`, a new player. */
  async function playerPage(name: string): Promise<{ page: Page; close: () => Promise<void> }> {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${proxyOrigin}/health`);
    await page.addScriptTag({ url: '/sdk/manette.js' });
    await page.evaluate(async ({ key, name }) => {
      const m = (window as any).Manette.createClient({ apiKey: key, baseUrl: `${location.origin}/api/public/v1` });
      (window as any).m = m;
      (window as any).sentAt = [];
      m.sync.onChange((e: any) => { if (e.type === 'sent') (window as any).sentAt.push(Date.now()); });
      await m.auth.register({ pseudo: name, email: `${name.toLowerCase()}@example.test`, password: 'motdepasse-solide' });
    }, { key, name });
    return { page, close: () => ctx.close() };
  }

  it('after a lost answer, flush() sends the write now: the queue is empty when it resolves, one row', async () => {
    const name = pseudo('Vide');
    const { page, close } = await playerPage(name);
    writes.length = 0;
    dropAnswers = 1;
    const first = await page.evaluate(() => (window as any).m.table('inventaire').insert({ item_id: 'unique' }));
    // The write reached the server, the answer was lost: the page has a pending row, the
    // write waits for its retry timer.
    expect(first).toMatchObject({ en_attente: true, donnees: { item_id: 'unique' } });
    expect(writes.map((w) => [w.status, w.dropped])).toEqual([[201, true]]);
    expect(await rowsOf(name)).toBe(1);

    const after = await page.evaluate(async () => {
      const m = (window as any).m;
      await m.sync.flush();
      return (await m.sync.pending()).length;
    });
    expect(after).toBe(0);
    // Replayed with the same Idempotency-Key: the server's first answer, no second row.
    expect(writes).toHaveLength(2);
    expect(writes[1]).toMatchObject({ key: writes[0]!.key, status: 201, dropped: false });
    expect(await rowsOf(name)).toBe(1);
    await close();
  }, T);

  it('back online, a write waiting for its retry timer is sent before the timer is due', async () => {
    const name = pseudo('Retour');
    const { page, close } = await playerPage(name);
    writes.length = 0;
    // Three lost answers (the insert, then two flush() calls): the next try is 4 s away.
    dropAnswers = 3;
    await page.evaluate(async () => {
      const m = (window as any).m;
      await m.table('inventaire').insert({ item_id: 'retour' });
      await m.sync.flush();
      await m.sync.flush();
    });
    expect(writes.map((w) => w.dropped)).toEqual([true, true, true]);
    // When the retry timer is due, read from the queue itself (IndexedDB).
    const notBefore = await page.evaluate(async () => {
      const dbs = await indexedDB.databases();
      const name = dbs.map((d) => d.name).find((n) => n?.startsWith('manette-sync-'))!;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open(name);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const ops = await new Promise<any[]>((resolve, reject) => {
        const r = db.transaction('ops').objectStore('ops').getAll();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      db.close();
      return ops.map((o) => o.notBefore as number);
    });
    expect(notBefore).toHaveLength(1);
    const ctx = page.context();
    await ctx.setOffline(true);
    await page.waitForFunction(() => !navigator.onLine, undefined, { timeout: 5000 });
    await ctx.setOffline(false); // the `online` event
    await waitUntil(async () => (await page.evaluate(() => (window as any).m.sync.pending())).length === 0, 'queue sent');
    const sentAt = await page.evaluate(() => (window as any).sentAt as number[]);
    expect(sentAt).toHaveLength(1);
    // Sent on `online`, not by the timer: the timer could not have sent it before notBefore.
    expect(sentAt[0]).toBeLessThan(notBefore[0]!);
    expect(writes).toHaveLength(4);
    expect(new Set(writes.map((w) => w.key)).size).toBe(1);
    expect(await rowsOf(name)).toBe(1);
    await close();
  }, T);
});
