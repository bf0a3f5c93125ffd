// Leaderboards (docs/leaderboards.md): api.leaderboards_* (supabase/schema/functions/api.leaderboards_*.sql).
import list from './list.js';
import submit from './submit.js';
import scores from './scores.js';

export default [list, submit, scores];
