// The overview's warning about the sweep of expired turns (GET /api/games/:jeu/sweep,
// manette_admin.console_sweep): shown only when the game has modes with a turn timer and
// no sweep ran in the last minute, with what to schedule (docs/matches.md, "Who runs the
// sweep"). Refreshed with the overview, every 5 s. Its own file: the overview page only
// places it.
import { api, gamePath } from '../api.js';
import { t, useLang } from '../i18n.js';
import { useLoad } from '../ui.js';

interface SweepState {
  modes_minutes: string[];
  dernier_balayage: { le: string; par: string; chemin: 'api' | 'sql'; il_y_a_s: number } | null;
  avertir: boolean;
}

const SWEEP_JOB_SQL = `select cron.schedule('manette-sweep-expired-turns', '1 seconds', 'select manette.sweep_expired_turns()');`;

export function SweepWarning({ jeu }: { jeu: string }) {
  useLang();
  const loaded = useLoad(() => api.get<SweepState>(gamePath(jeu, 'sweep')), [jeu], 5_000);
  const s = loaded.data;
  if (!s || !s.avertir) return null;
  const modes = s.modes_minutes.join(', ');
  return (
    <div class="notice sweep-warning" role="alert" data-testid="sweep-warning">
      <strong>{t({ en: 'Turn timers are not applied', fr: 'Les délais de tour ne sont pas appliqués' })}</strong>
      <p>
        {s.dernier_balayage
          ? t({ en: 'Modes {modes} have a turn timer, and the last sweep of expired turns ran {s} s ago.',
                fr: 'Les modes {modes} ont un délai de tour, et le dernier balayage des tours expirés date de {s} s.' },
              { modes, s: String(s.dernier_balayage.il_y_a_s) })
          : t({ en: 'Modes {modes} have a turn timer, and no sweep of expired turns has run.',
                fr: 'Les modes {modes} ont un délai de tour, et aucun balayage des tours expirés n’a tourné.' }, { modes })}
        {' '}
        {t({ en: 'A match whose player left stays in progress until someone reads it.',
             fr: 'Une partie dont un joueur est parti reste en cours jusqu’à ce que quelqu’un la lise.' })}
      </p>
      <p>
        {t({ en: 'On a Supabase project (Edge Function): enable pg_cron, then run as postgres in the SQL editor:',
             fr: 'Sur un projet Supabase (Edge Function) : active pg_cron, puis lance en postgres dans l’éditeur SQL :' })}
      </p>
      <pre>{SWEEP_JOB_SQL}</pre>
      <p class="muted small">
        {t({ en: 'A Node host (manette start) sweeps by itself: check that it runs. `manette doctor` checks the rest.',
             fr: 'Un hôte Node (manette start) balaie tout seul : vérifie qu’il tourne. `manette doctor` vérifie le reste.' })}
      </p>
    </div>
  );
}
