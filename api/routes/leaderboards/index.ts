// Leaderboards (docs/leaderboards.md): api.leaderboards_* (supabase/schema/functions/api.leaderboards_*.sql).
import submit from './submit.js';
import scores from './scores.js';

export default [submit, scores];
