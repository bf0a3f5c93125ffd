// Password hashing runs here, never in the database: scrypt at OWASP's recommended
// cost (N=2^17, r=8, p=1). Stored form: scrypt$N$r$p$<salt b64>$<hash b64>.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, KEY_LENGTH, { ...options, maxmem: 256 * options.N! * options.r! }, (err, key) =>
      err ? reject(err) : resolve(key)));
}

export async function hashPassword(password: string, N: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { N, r: 8, p: 1 });
  return `scrypt$${N}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

// A fixed hash to verify against when the player does not exist, so that a wrong
// identifier and a wrong password take the same time.
let decoy: Promise<string> | undefined;

export async function verifyPassword(password: string, stored: string | null, N: number): Promise<boolean> {
  const target = stored ?? (await (decoy ??= hashPassword('decoy-password', N)));
  const [scheme, n, r, p, salt, hash] = target.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return stored !== null && actual.length === expected.length && timingSafeEqual(actual, expected);
}
