// The browser SDK (docs/sdk.md): `Manette` for the classic script, the same as an ES module.
import './panels/index.js';

export { createClient, createPkcePair, lastClient } from './client.js';
export type { ClientOptions, ListOptions, ManetteClient, MatchHandle, MatchSubscription, Table } from './client.js';
export { ManetteError } from './errors.js';
export { applyAction, replayStates, shippedRules, turnDelayMs } from './replay.js';
export type { Replay, Rules, RulesResult, ShippedRules } from './replay.js';
export type { FieldIssue } from './errors.js';
export type { PendingOp, SyncEvent } from './sync.js';
export type { RealtimeLoader, RealtimeModule } from './realtime.js';
export type { FromSupabaseOptions, SupabaseAuthClientLike, SupabaseCreateClient, SupabaseSessionLike } from './supabase.js';
export type { NotificationKind, NotificationPreferences, Notifications, SubscribeOptions } from './notifications.js';
export type * from './types.js';
export const version = '0.1.0';
