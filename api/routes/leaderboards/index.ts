// Leaderboards (docs/leaderboards.md): api.leaderboards_* in supabase/migrations/*_leaderboards.sql.
import submit from './submit.js';
import scores from './scores.js';

export default [submit, scores];
