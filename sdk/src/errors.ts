// ManetteError: every failure of the SDK (docs/api.md, docs/sdk.md).
export interface FieldIssue { champ: string; message: string }

export class ManetteError extends Error {
  override readonly name = 'ManetteError';
  /** The API's error code (`invalid_token`, `action_refusee`...), or `network_error`, `aborted`. */
  readonly code: string;
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  readonly reason: string | undefined;
  readonly details: FieldIssue[] | undefined;
  /** The server's x-request-id, to find the request in its logs. */
  readonly requestId: string | undefined;
  /**
   * For `compte_suspendu` only: when the suspension ends (ISO 8601), or null when it lasts
   * until it is lifted; undefined for every other error.
   */
  readonly jusqu_a: string | null | undefined;

  constructor(init: { code: string; status: number; message: string; reason?: string; details?: FieldIssue[]; requestId?: string; jusqu_a?: string | null }) {
    super(init.message);
    this.code = init.code;
    this.status = init.status;
    this.reason = init.reason;
    this.details = init.details;
    this.requestId = init.requestId;
    this.jusqu_a = init.jusqu_a;
  }

  toJSON() {
    return { name: this.name, code: this.code, status: this.status, message: this.message, reason: this.reason, details: this.details, requestId: this.requestId, jusqu_a: this.jusqu_a };
  }
}

export function networkError(cause: unknown, lang: string): ManetteError {
  const message = lang === 'en' ? 'The server cannot be reached.' : 'Le serveur est injoignable.';
  const err = new ManetteError({ code: 'network_error', status: 0, message });
  (err as { cause?: unknown }).cause = cause;
  return err;
}

export function abortedError(lang: string): ManetteError {
  return new ManetteError({ code: 'aborted', status: 0, message: lang === 'en' ? 'Cancelled.' : 'Annulé.' });
}
