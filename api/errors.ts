// The ground floor of errors: what every layer may throw or test, below api/http (which maps
// anything thrown to the wire envelope: http/errors.ts), api/db and api/security, so that
// neither of those imports from http/ (test/layers.test.ts).

export interface FieldIssue { champ: string; message: string }

/** An error with its HTTP status and wire code (`{ok:false, error: code}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly extra: {
      reason?: string; details?: FieldIssue[]; retryAfter?: number; until?: string | null;
      /** Fields the message names (an error whose envelope has no `details`: an upload's champ_invalide). */
      fields?: string[];
    } = {},
  ) {
    super(code);
  }
}

/** SQLSTATE class 40 that a new attempt of the same transaction may pass: serialization failure, deadlock. */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code ?? '';
  return code === '40001' || code === '40P01';
}
