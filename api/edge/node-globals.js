// Injected into the Edge Function's bundle (api/edge/bundle.ts): the Node globals that the
// bundled npm packages use as free variables. Deno gives them to modules it loads from npm,
// not to a plain ES module such as the bundle, and its web timers return numbers where
// Node's return objects with unref().
export { Buffer } from 'node:buffer';
export { default as process } from 'node:process';
export { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate } from 'node:timers';
