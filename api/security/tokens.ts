import { randomBytes, randomInt } from 'node:crypto';

/** Player session token: pt_ + 43 base64url characters (256 random bits). */
export function newPlayerToken(): string {
  return 'pt_' + randomBytes(32).toString('base64url');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Public API key: sk_live_ + 40 base62 characters. */
export function newApiKey(): string {
  let out = 'sk_live_';
  for (let i = 0; i < 40; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}
