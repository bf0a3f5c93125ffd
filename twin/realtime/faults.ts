// Test faults of the local Realtime (never on a project): committed database broadcasts
// dropped on purpose, as Supabase Realtime may lose any of them (delivery is at most once).
// Owned by the caller, so that it outlives a stop and start of the stand-in.

export class DeliveryFaults {
  /** Broadcasts left to drop, by event name, or by event name and topic ('etat manette_partie_…'). */
  private readonly pending = new Map<string, number>();
  /** Broadcasts dropped so far. */
  dropped = 0;

  /**
   * Drops the next `count` committed broadcasts with this event name: on one topic when it is
   * given (a test's own match, whatever other matches send meanwhile), else on every topic.
   */
  dropNext(event: string, count = 1, topic?: string): void {
    const key = topic === undefined ? event : `${event} ${topic}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + count);
  }

  /** Whether this broadcast is to be dropped (and counts it). */
  take(event: string, topic?: string): boolean {
    return (topic !== undefined && this.takeKey(`${event} ${topic}`)) || this.takeKey(event);
  }

  private takeKey(key: string): boolean {
    const left = this.pending.get(key) ?? 0;
    if (left <= 0) return false;
    if (left === 1) this.pending.delete(key); else this.pending.set(key, left - 1);
    this.dropped++;
    return true;
  }
}
