// A push service and a webhook receiver on this machine, for the notifications tests
// (docs/notifications.md): a Node HTTP server that records what it receives and answers the
// statuses a test queues; a browser's push subscription made here (its ECDH key pair and auth
// secret); the decryption of a Web Push body with node:crypto alone (RFC 8188 framing, RFC
// 8291 keys), independent of the library that encrypted it; the VAPID check (RFC 8292) with
// jose; the webhook's HMAC check as a studio's receiver makes it.
import { expect } from 'vitest';
import http from 'node:http';
import { createECDH, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual, type ECDH } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

const b64u = (b: Buffer) => b.toString('base64url');

export interface Received { path: string; headers: http.IncomingHttpHeaders; body: Buffer; at: number }
export interface Receiver {
  origin: string;
  got: Received[];
  /** The statuses to answer next, in order (then 201 for push, 200 for the webhook); 0: never answer. */
  answers: number[];
  close(): Promise<void>;
}
export async function receiver(okStatus: number): Promise<Receiver> {
  const got: Received[] = [];
  const answers: number[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
      const status = answers.length ? answers.shift()! : okStatus;
      if (status === 0) { held.push(res); return; }
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`, got, answers,
    async close() {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A browser's subscription, made here: its ECDH key pair and auth secret (RFC 8291 §2). */
export interface Subscription { endpoint: string; keys: { p256dh: string; auth: string }; ecdh: ECDH; authSecret: Buffer }
export function subscription(endpoint: string): Subscription {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return { endpoint, keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(authSecret) }, ecdh, authSecret };
}

/** Decrypts an aes128gcm push message body (RFC 8188 framing, RFC 8291 keys) with the subscription's private key. */
export function decryptPush(body: Buffer, sub: Subscription): any {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  expect(idlen).toBe(65);
  expect(ciphertext.length).toBeLessThanOrEqual(rs);
  const uaPublic = sub.ecdh.getPublicKey();
  const ecdhSecret = sub.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, sub.authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record: the data, the delimiter 0x02, then zeros.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  expect(padded[end]).toBe(2);
  return JSON.parse(padded.subarray(0, end).toString('utf8'));
}

/** The VAPID Authorization header (RFC 8292): `vapid t=<JWT ES256>, k=<public key>`, for the push service's origin. */
export async function verifyVapid(r: Received, origin: string, vapid: { publicKey: string; subject: string }) {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(String(r.headers.authorization));
  expect(m, String(r.headers.authorization)).not.toBeNull();
  const [, jwt, k] = m!;
  expect(k).toBe(vapid.publicKey);
  const point = Buffer.from(k!, 'base64url');
  const key = await importJWK({ kty: 'EC', crv: 'P-256', x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33, 65)) }, 'ES256');
  const { payload } = await jwtVerify(jwt!, key, { audience: origin });
  expect(decodeProtectedHeader(jwt!).alg).toBe('ES256');
  expect(payload.sub).toBe(vapid.subject);
  expect(decodeJwt(jwt!).exp).toBeGreaterThan(Date.now() / 1000);
}

/** What a studio's receiver does with a webhook (docs/notifications.md, "Verifying a webhook"). */
export function verifyWebhook(r: Received, secret: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['manette-webhook-signature']));
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${r.body.toString('utf8')}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

