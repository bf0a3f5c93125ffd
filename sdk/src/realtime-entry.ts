// Built alone as /sdk/manette-realtime.mjs: @supabase/realtime-js, loaded by the SDK only
// when a room or the player channel is subscribed.
export { RealtimeClient } from '@supabase/realtime-js';
