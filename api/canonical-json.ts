// One serialization per JSON value, whatever the key order or spacing it was sent with:
// request fingerprints (Idempotency-Key) and presence payload comparison (local Realtime).

/** JSON with object keys sorted at every level: the same value, whatever the spacing or key order sent. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
