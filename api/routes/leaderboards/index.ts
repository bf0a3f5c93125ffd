// Leaderboards (contract section 6): api.leaderboards_* (supabase/schema/functions/api.leaderboards_*.sql).
import submit from './submit.js';
import scores from './scores.js';

export default [submit, scores];
