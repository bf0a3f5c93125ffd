// POST /players/register with an Idempotency-Key (docs/api.md). A retry must get the
// first answer, its session token included, and the same key with another password must be
// 409, yet the idempotency table must hold neither the token nor the password nor a fast
// hash of it (a SHA-256 of the body would be one: brute-forced offline in no time).
//
// Two argon2id hashes with salts derived from the key and the account (so a retry finds
// them again; unique per game, key and account) do it, in the request's one place of the
// hashing queue. The first is the stored password hash (a standard PHC string, checked by
// verifyPassword as usual). The second, with another salt, is a secret that only the
// password gives back, at the price of one argon2id per guess, like the stored hash; it is
// not derived from the stored hash, so the players table does not give it away. (scrypt,
// used before, gave both from one computation since the end of its output does not depend
// on the length asked; argon2's output does, so it takes a second hash: a keyed
// registration costs two hashes, a plain one one.) From that secret: the session token (so
// the same request always carries the same token, and the database stores only its
// SHA-256, in sessions) and the password's part of the request's fingerprint.
import { createHash, createHmac } from 'node:crypto';
import { argon2idKey, hashingQueue, phcString, type HashTicket, type PasswordCost } from './password.js';

export interface KeyedRegistration {
  /** $argon2id$v=19$m=…,t=…,p=1$<salt>$<hash>, like hashPassword's. */
  passwordHash: string;
  /** pt_ + 43 base64url characters, like newPlayerToken's. */
  token: string;
  /** The body hash the façade computed without the password, bound to the password too. */
  bodyHash: string;
}

export async function keyedRegistration(
  input: { password: string; idempotencyKey: string; apiKey: string; pseudo: string; email: string; bodyHash: string },
  cost: PasswordCost,
  ticket: HashTicket = hashingQueue(cost).reserve(),
): Promise<KeyedRegistration> {
  const derivedSalt = (label: string) => createHmac('sha256', input.idempotencyKey)
    .update([label, input.apiKey, input.pseudo, input.email].join('\u0000'))
    .digest()
    .subarray(0, 16);
  const salt = derivedSalt('manette/register/salt/v2');
  const [hash, secret] = await ticket.run(async () => [
    await argon2idKey(input.password, salt, cost),
    await argon2idKey(input.password, derivedSalt('manette/register/secret-salt/v2'), cost),
  ] as const);
  const derive = (label: string) => createHmac('sha256', secret).update(label).digest();
  return {
    passwordHash: phcString({ m: cost.memoryKiB, t: cost.iterations, p: 1 }, salt, hash),
    token: 'pt_' + derive('manette/register/session-token/v1').toString('base64url'),
    bodyHash: createHash('sha256')
      .update(`${input.bodyHash}:${derive('manette/register/password-binding/v1').toString('hex')}`)
      .digest('hex'),
  };
}
