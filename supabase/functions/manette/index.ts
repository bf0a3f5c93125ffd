// Supabase Edge Function "manette": the Manette API at /functions/v1/manette/api/public/v1.
// The function is manette.js beside this file: api/edge/function.ts and everything it
// imports, bundled by `npm run build:function` (generated, not committed: build it again
// before each `npx supabase functions deploy manette`). See docs/deploy.md.
import './manette.js';
