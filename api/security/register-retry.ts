// POST /players/register with an Idempotency-Key (contract section 12). A retry must get the
// first answer, its session token included, and the same key with another password must be
// 409, yet the idempotency table must hold neither the token nor the password nor a fast
// hash of it (a SHA-256 of the body would be one: brute-forced offline in no time).
//
// One scrypt, the one registering hashes with anyway, does it: its salt is derived from the
// key and the account (so a retry finds it again; unique per game, key and account), and
// it is asked for 64 bytes instead of 32. Scrypt ends with PBKDF2-HMAC-SHA256 with one
// iteration, whose output blocks do not depend on the length asked: the first 32 bytes are
// exactly hashPassword's hash for that salt (the stored password hash, checked by
// verifyPassword as usual), and the last 32 bytes are a secret that only the password gives
// back, at the price of one scrypt per guess, like the stored hash. From that secret: the
// session token (so the same request always carries the same token, and the database
// stores only its SHA-256, in sessions) and the password's part of the request's
// fingerprint.
import { createHash, createHmac } from 'node:crypto';
import { hashingQueue, scryptKey, storedHash, type HashTicket } from './password.js';

export interface KeyedRegistration {
  /** scrypt$N$r$p$<salt>$<hash>, like hashPassword's. */
  passwordHash: string;
  /** pt_ + 43 base64url characters, like newPlayerToken's. */
  token: string;
  /** The body hash the façade computed without the password, bound to the password too. */
  bodyHash: string;
}

export async function keyedRegistration(
  input: { password: string; idempotencyKey: string; apiKey: string; pseudo: string; email: string; bodyHash: string },
  N: number,
  ticket: HashTicket = hashingQueue(N).reserve(),
): Promise<KeyedRegistration> {
  const salt = createHmac('sha256', input.idempotencyKey)
    .update(['manette/register/salt/v1', input.apiKey, input.pseudo, input.email].join('\u0000'))
    .digest()
    .subarray(0, 16);
  const out = await ticket.run(() => scryptKey(input.password, salt, { N }, 64));
  const secret = out.subarray(32);
  const derive = (label: string) => createHmac('sha256', secret).update(label).digest();
  return {
    passwordHash: storedHash(N, salt, out.subarray(0, 32)),
    token: 'pt_' + derive('manette/register/session-token/v1').toString('base64url'),
    bodyHash: createHash('sha256')
      .update(`${input.bodyHash}:${derive('manette/register/password-binding/v1').toString('hex')}`)
      .digest('hex'),
  };
}
