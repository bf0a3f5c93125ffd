// Test faults of the local Realtime (never on a project): committed database broadcasts
// dropped on purpose, as Supabase Realtime may lose any of them (delivery is at most once).
// Owned by the caller, so that it outlives a stop and start of the stand-in.

export class DeliveryFaults {
  private readonly pending = new Map<string, number>();
  /** Broadcasts dropped so far. */
  dropped = 0;

  /** Drops the next `count` committed broadcasts with this event name (every room). */
  dropNext(event: string, count = 1): void {
    this.pending.set(event, (this.pending.get(event) ?? 0) + count);
  }

  /** Whether this broadcast is to be dropped (and counts it). */
  take(event: string): boolean {
    const left = this.pending.get(event) ?? 0;
    if (left <= 0) return false;
    if (left === 1) this.pending.delete(event); else this.pending.set(event, left - 1);
    this.dropped++;
    return true;
  }
}
