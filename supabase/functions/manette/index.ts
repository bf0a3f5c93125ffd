// Supabase Edge Function "manette": the Manette API at /functions/v1/manette/api/public/v1.
// The function is manette.js beside this file: the API and its npm packages in one file,
// generated, not committed: `npm run build:function` in Manette's repository,
// `npx manette supabase-function` in a studio's. Build it again before each
// `npx supabase functions deploy manette`. See docs/deploy.md.
import './manette.js';
