// A hosted project's API keys and JWT signing keys, as the twin plays them (docs/deploy.md,
// "Players' realtime tokens", says what was read where):
//
// - API keys: a publishable key (`sb_publishable_…`, not a JWT) that the gateway accepts as
//   `apikey`, and the legacy `anon` / `service_role` JWT keys, which a project can disable
//   (supabase/supabase apps/docs/content/guides/api/api-keys.mdx). Realtime itself only
//   verifies JWTs (supabase/realtime lib/realtime_web/channels/user_socket.ex): the gateway
//   stands between, as the CLI's local stack shows (its Kong replaces a publishable key by
//   the anon JWT, supabase/cli apps/cli-go/internal/start/start.go, QueryToken). Here the
//   socket's apikey check plays that gateway.
// - Signing keys, each standby, in use (exactly one: the current key), previously used or
//   revoked (apps/docs/content/guides/auth/signing-keys.mdx; the Management API's statuses,
//   supabase/cli apps/cli-go/pkg/api/types.gen.go SigningKeyResponseStatus). Accepted
//   signatures: the current key's and the previously used keys'; a standby key's are not
//   ("Create a new key: current key only"), a revoked key's are not. The legacy JWT secret
//   is one of them (HS256): revoking it requires the legacy API keys disabled first (the
//   page's FAQ). Realtime is given the trusted keys only: its jwt_jwks holds the public
//   parts of the trusted asymmetric keys, its jwt_secret is the legacy secret while that is
//   trusted (once revoked, a secret nobody has, so HS256 tokens fail their signature check).
//   What the platform really writes into Realtime's tenant is not in any public source:
//   this is the documented behaviour, played through Realtime's own verification (jwt.ts).
//   Supabase's docs also say a standby asymmetric key is already published in the JWKS
//   discovery endpoint, and Supabase Auth's source verifies a token by any key of its
//   GOTRUE_JWT_KEYS (supabase/auth internal/conf/jwk.go, FindPublicKeyByKid): whether
//   Realtime trusts a standby key is thus not certain from the sources; the twin refuses
//   it, as the docs' table says, which is the stricter reading.
// - Not played: the ~5 minute throttle Supabase puts on state changes, Supabase's own
//   generated keys' private parts (never extractable there, so never needed here).
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import type { TenantJwk, TenantKeys } from './jwt.js';

export type SigningKeyStatus = 'standby' | 'in_use' | 'previously_used' | 'revoked';
export type SigningKeyAlgorithm = 'HS256' | 'RS256' | 'ES256';

export interface SigningKey {
  /** The Management API's id of the key (a UUID). */
  id: string;
  algorithm: SigningKeyAlgorithm;
  status: SigningKeyStatus;
  /** The public JWK (with its kid) of an asymmetric key; none for the legacy secret. */
  publicJwk?: JWK;
  legacy: boolean;
  createdAt: string;
  updatedAt: string;
}

export class KeyStateError extends Error {
  constructor(message: string, readonly status = 400) { super(message); }
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const publicPart = (jwk: JWK): JWK => Object.fromEntries(Object.entries(jwk).filter(([m]) => !PRIVATE_MEMBERS.includes(m))) as JWK;

export interface ProjectKeysOptions {
  /** The legacy JWT secret (what signs the legacy anon / service_role keys). */
  legacyJwtSecret: string;
  /** The publishable keys by name; default {default: a new sb_publishable_… key}. */
  publishableKeys?: Record<string, string>;
  /**
   * `legacy`: a project as created before the new keys (legacy secret in use, legacy API
   * keys enabled). `new-keys`: legacy API keys disabled, the legacy secret revoked, and a
   * Supabase-generated ES256 key in use (whose private part nobody outside has).
   */
  mode: 'legacy' | 'new-keys';
}

/** A project's API keys and JWT signing keys, and what Realtime is given of them. */
export class ProjectKeys {
  readonly publishableKeys: Record<string, string>;
  readonly legacyJwtSecret: string;
  private legacyEnabled: boolean;
  private readonly keys: SigningKey[] = [];
  /** What Realtime verifies HS* tokens with once the legacy secret is no longer trusted. */
  private readonly unknownSecret = new Uint8Array(randomBytes(32));
  private readonly legacySecretBytes: Uint8Array;

  constructor(opts: ProjectKeysOptions) {
    this.legacyJwtSecret = opts.legacyJwtSecret;
    this.legacySecretBytes = new TextEncoder().encode(opts.legacyJwtSecret);
    // Shaped like the CLI's local one (sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH,
    // supabase/cli apps/cli-go/pkg/config/apikeys.go), but a fresh one per project.
    this.publishableKeys = opts.publishableKeys ?? { default: `sb_publishable_${randomBytes(17).toString('base64url').slice(0, 22)}_${randomBytes(6).toString('base64url')}` };
    this.legacyEnabled = opts.mode === 'legacy';
    this.keys.push(this.entry({ algorithm: 'HS256', status: opts.mode === 'legacy' ? 'in_use' : 'revoked', legacy: true }));
    if (opts.mode === 'new-keys') {
      // Supabase's own key: only its public part exists outside the platform.
      const kid = randomUUID();
      this.keys.push(this.entry({ algorithm: 'ES256', status: 'in_use', legacy: false, publicJwk: supabaseGeneratedPublicJwk(kid) }));
    }
  }

  private entry(k: Omit<SigningKey, 'id' | 'createdAt' | 'updatedAt'>): SigningKey {
    const now = new Date().toISOString();
    return { id: randomUUID(), createdAt: now, updatedAt: now, ...k };
  }

  /** Every key, as the Management API lists them. */
  list(): SigningKey[] { return this.keys.map((k) => ({ ...k })); }
  get(id: string): SigningKey | undefined { const k = this.keys.find((x) => x.id === id); return k && { ...k }; }
  legacyKey(): SigningKey { return { ...this.keys.find((k) => k.legacy)! }; }
  get legacyApiKeysEnabled(): boolean { return this.legacyEnabled; }

  /**
   * A key imported from its private JWK (RS256 or ES256, with its kid), as standby, or
   * straight in use (the Management API's create body allows both statuses). One standby
   * key at a time: the docs' migration says to move a standby key away before importing another.
   */
  importKey(algorithm: string, privateJwk: JWK, status: 'standby' | 'in_use' = 'standby'): SigningKey {
    if (algorithm !== 'RS256' && algorithm !== 'ES256') throw new KeyStateError(`algorithm ${JSON.stringify(algorithm)}: the twin imports RS256 and ES256 keys`);
    const kty = algorithm === 'RS256' ? 'RSA' : 'EC';
    if (privateJwk?.kty !== kty || (kty === 'EC' && privateJwk.crv !== 'P-256')) throw new KeyStateError(`private_jwk is not an ${algorithm} key`);
    if (typeof privateJwk.d !== 'string') throw new KeyStateError('private_jwk has no private part ("d")');
    if (typeof privateJwk.kid !== 'string' || privateJwk.kid === '') throw new KeyStateError('private_jwk has no kid');
    if (this.keys.some((k) => k.publicJwk?.kid === privateJwk.kid)) throw new KeyStateError(`a key with kid ${privateJwk.kid} exists already`, 409);
    if (this.keys.some((k) => k.status === 'standby')) throw new KeyStateError('the project has a standby key already: move it to previously used first', 409);
    const key = this.entry({ algorithm, status: 'standby', legacy: false, publicJwk: publicPart(privateJwk) });
    this.keys.push(key);
    if (status === 'in_use') this.setStatus(key.id, 'in_use');
    return { ...key };
  }

  /**
   * The Management API's PATCH of a key's status, the dashboard's actions:
   * standby → in_use ("Rotate keys": the current key becomes previously used);
   * standby → previously_used; previously_used → revoked (the legacy secret only once the
   * legacy API keys are disabled); previously_used or revoked → standby. The current key
   * leaves in_use only by a rotation to another key.
   */
  setStatus(id: string, status: SigningKeyStatus): SigningKey {
    const key = this.keys.find((k) => k.id === id);
    if (!key) throw new KeyStateError(`no signing key ${id}`, 404);
    const from = key.status;
    const now = new Date().toISOString();
    const set = (k: SigningKey, s: SigningKeyStatus) => { k.status = s; k.updatedAt = now; };
    if (from === status) return { ...key };
    if (status === 'in_use') {
      if (from !== 'standby') throw new KeyStateError(`a ${from} key cannot be rotated in: move it to standby first`);
      for (const k of this.keys) if (k.status === 'in_use') set(k, 'previously_used');
      set(key, 'in_use');
    } else if (status === 'previously_used') {
      if (from !== 'standby') throw new KeyStateError(`a ${from} key cannot become previously used (only a standby key can, or the current key by a rotation)`);
      set(key, 'previously_used');
    } else if (status === 'revoked') {
      if (from !== 'previously_used') throw new KeyStateError(`a ${from} key cannot be revoked (only a previously used key can)`);
      if (key.legacy && this.legacyEnabled) throw new KeyStateError('the legacy JWT secret can be revoked only once the legacy API keys (anon, service_role) are disabled');
      set(key, 'revoked');
    } else {
      if (from === 'in_use') throw new KeyStateError('the current key cannot be moved to standby: rotate to another key first');
      if (this.keys.some((k) => k.status === 'standby')) throw new KeyStateError('the project has a standby key already', 409);
      set(key, 'standby');
    }
    return { ...key };
  }

  /** The legacy API keys (anon, service_role) on or off. Turning them on needs the legacy secret trusted. */
  setLegacyApiKeys(enabled: boolean): void {
    if (enabled) {
      const legacy = this.keys.find((k) => k.legacy)!;
      if (legacy.status === 'revoked' || legacy.status === 'standby') throw new KeyStateError('the legacy API keys need the legacy JWT secret in use or previously used');
    }
    this.legacyEnabled = enabled;
  }

  private trusted = (k: SigningKey) => k.status === 'in_use' || k.status === 'previously_used';

  /**
   * What Realtime verifies tokens with (its tenant's jwt_secret and jwt_jwks), read at each
   * check: a change of state is seen at once (Supabase: "revocation is instantaneous" for its products).
   */
  realtimeKeys(): TenantKeys {
    const self = this;
    return {
      get secret() { return self.trusted(self.keys.find((k) => k.legacy)!) ? self.legacySecretBytes : self.unknownSecret; },
      get jwks() { return { keys: self.keys.filter((k) => !k.legacy && self.trusted(k)).map((k) => k.publicJwk as TenantJwk) }; },
    };
  }

  /** The public JWKS (auth/v1/.well-known/jwks.json): every asymmetric key not revoked, standby included (the docs say so). */
  discoveryJwks(): { keys: JWK[] } {
    return { keys: this.keys.filter((k) => !k.legacy && k.status !== 'revoked').map((k) => ({ ...k.publicJwk!, use: 'sig', key_ops: ['verify'] })) };
  }

  /**
   * The gateway's answer to a socket's `apikey`: a publishable key passes (Realtime then sees
   * the anon role); a legacy JWT key passes only while the legacy API keys are enabled, and
   * is then verified by Realtime; anything else is refused. The refusals' wording is the
   * twin's (Supabase's gateway is not public).
   */
  gateway(apikey: string | undefined): { pass: 'publishable' } | { pass: 'jwt' } | { refuse: string } {
    if (!apikey) return { refuse: 'API key is missing' };
    if (Object.values(this.publishableKeys).includes(apikey)) return { pass: 'publishable' };
    if (/^[^.]+\.[^.]+\.[^.]*$/.test(apikey.trim())) {
      return this.legacyEnabled ? { pass: 'jwt' } : { refuse: 'Legacy API keys are disabled: use the publishable key' };
    }
    return { refuse: 'Invalid API key' };
  }
}

/** The public part of a new P-256 key whose private part is dropped: all that is known outside of a key Supabase generated. */
function supabaseGeneratedPublicJwk(kid: string): JWK {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg: 'ES256' };
}
