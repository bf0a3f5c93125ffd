// The leaderboards page: the game's boards, then a board's top for a period (ranked as
// GET /leaderboards/:id/scores ranks it, paged), a player's rank, and a score retired.
// Server: console/server/routes/leaderboards.ts (manette_admin.console_leaderboards,
// console_leaderboard, leaderboard_retire).
import { useState } from 'preact/hooks';
import { api, gamePath, qs } from '../api.js';
import { num, t, useLang, when, type Text } from '../i18n.js';
import { href } from '../router.js';
import type { ConsolePage, PageProps } from '../types.js';
import { Card, ConfirmButton, DataTable, Pager, Show, Stat, useLoad, type Column } from '../ui.js';

interface BoardConfig {
  id: string; nom: string | null; ordre: 'asc' | 'desc'; operateur: 'meilleur' | 'dernier' | 'somme';
  reinitialisation: 'aucune' | 'quotidienne' | 'hebdomadaire' | 'mensuelle'; valeur_min: number | null; valeur_max: number | null;
}
interface BoardSummary extends BoardConfig { periode: string | null; entrees: number }
interface Entry { rang: number; joueur_id: string; pseudo: string; valeur: number; maj_le: string }
interface Period { periode: string | null; entrees: number; courante: boolean }
interface Board {
  classement: BoardConfig; periode: string | null; courante: boolean; entrees: number; lignes: Entry[]; plus: boolean;
  periodes: Period[];
  joueur: { joueur_id: string; pseudo: string; rang: number | null; valeur: number | null; maj_le: string | null } | null;
}

const LIMIT = 20;

const ORDER: Record<string, Text> = { desc: { en: 'higher is better', fr: 'plus haut = meilleur' }, asc: { en: 'lower is better', fr: 'plus bas = meilleur' } };
const OPERATOR: Record<string, Text> = {
  meilleur: { en: 'keeps the best', fr: 'garde le meilleur' },
  dernier: { en: 'keeps the last', fr: 'garde le dernier' },
  somme: { en: 'adds up', fr: 'additionne' },
};
const RESET: Record<string, Text> = {
  aucune: { en: 'never', fr: 'jamais' },
  quotidienne: { en: 'daily (UTC)', fr: 'quotidienne (UTC)' },
  hebdomadaire: { en: 'weekly (ISO week, UTC)', fr: 'hebdomadaire (semaine ISO, UTC)' },
  mensuelle: { en: 'monthly (UTC)', fr: 'mensuelle (UTC)' },
};
const tr = (map: Record<string, Text>, k: string) => t(map[k] ?? { en: k, fr: k });

/** A period start as a date (days, weeks, months start at 00:00 UTC). */
function periodLabel(iso: string | null, reset: string): string {
  if (!iso) return t({ en: 'all time', fr: 'depuis toujours' });
  const d = new Date(iso);
  const lang = t({ en: 'en-GB', fr: 'fr-FR' });
  if (reset === 'mensuelle') return d.toLocaleDateString(lang, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  const day = d.toLocaleDateString(lang, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  return reset === 'hebdomadaire' ? t({ en: 'week of {d}', fr: 'semaine du {d}' }, { d: day }) : day;
}

function BoardsList({ jeu }: { jeu: string }) {
  useLang();
  const boards = useLoad(() => api.get<BoardSummary[]>(gamePath(jeu, 'leaderboards')), [jeu]);
  const columns: Column<BoardSummary>[] = [
    { label: t({ en: 'Board', fr: 'Classement' }), cell: (b) => <a href={href(jeu, 'leaderboards', b.id)}><strong>{b.id}</strong></a> },
    { label: t({ en: 'Name', fr: 'Nom' }), cell: (b) => b.nom ?? <span class="muted">—</span> },
    { label: t({ en: 'Order', fr: 'Ordre' }), cell: (b) => tr(ORDER, b.ordre) },
    { label: t({ en: 'Operator', fr: 'Opérateur' }), cell: (b) => tr(OPERATOR, b.operateur) },
    { label: t({ en: 'Reset', fr: 'Réinitialisation' }), cell: (b) => tr(RESET, b.reinitialisation) },
    { label: t({ en: 'Current period', fr: 'Période en cours' }), cell: (b) => periodLabel(b.periode, b.reinitialisation) },
    { label: t({ en: 'Entries', fr: 'Entrées' }), cell: (b) => num(b.entrees), class: 'num' },
  ];
  return (
    <Card title={t({ en: 'Leaderboards', fr: 'Classements' })}>
      <Show loaded={boards}>{(list) => (
        <DataTable columns={columns} rows={list} rowKey={(b) => b.id}
          empty={t({ en: 'This game declares no leaderboard.', fr: 'Ce jeu ne déclare aucun classement.' })} />
      )}</Show>
    </Card>
  );
}

function BoardView({ jeu, id }: { jeu: string; id: string }) {
  useLang();
  const [periode, setPeriode] = useState<string>('');
  const [offset, setOffset] = useState(0);
  const [draft, setDraft] = useState('');
  const [joueur, setJoueur] = useState('');
  const board = useLoad(() => api.get<Board>(gamePath(jeu, 'leaderboards', id) + qs({ periode, limit: LIMIT, offset, joueur })),
    [jeu, id, periode, offset, joueur]);
  const retire = async (who: string, p: string | null) => {
    await api.post(gamePath(jeu, 'leaderboards', id, 'retire'), { joueur_id: who, periode: p });
    board.reload();
  };
  return (
    <>
      <p><a href={href(jeu, 'leaderboards')}>{t({ en: '← All leaderboards', fr: '← Tous les classements' })}</a></p>
      <Show loaded={board}>{(b) => {
        const c = b.classement;
        const columns: Column<Entry>[] = [
          { label: t({ en: 'Rank', fr: 'Rang' }), cell: (e) => <strong>{e.rang}</strong>, class: 'num' },
          { label: t({ en: 'Player', fr: 'Joueur' }), cell: (e) => <a href={href(jeu, 'players', e.joueur_id)}>{e.pseudo}</a> },
          { label: t({ en: 'Value', fr: 'Valeur' }), cell: (e) => num(e.valeur, 6), class: 'num' },
          { label: t({ en: 'Reached', fr: 'Atteinte le' }), cell: (e) => <span class="small">{when(e.maj_le)}</span> },
          { label: t({ en: 'Actions', fr: 'Actions' }), cell: (e) => (
            <ConfirmButton label={t({ en: 'Retire', fr: 'Retirer' })} confirm={t({ en: 'Really retire?', fr: 'Vraiment retirer ?' })}
              action={() => retire(e.joueur_id, b.periode)} />
          ) },
        ];
        return (
          <>
            <Card title={<>{c.id}{c.nom ? <span class="muted h1-game"> · {c.nom}</span> : null}</>}>
              <div class="stats">
                <Stat label={t({ en: 'Order', fr: 'Ordre' })} value={<span class="small">{tr(ORDER, c.ordre)}</span>} />
                <Stat label={t({ en: 'Operator', fr: 'Opérateur' })} value={<span class="small">{tr(OPERATOR, c.operateur)}</span>} />
                <Stat label={t({ en: 'Reset', fr: 'Réinitialisation' })} value={<span class="small">{tr(RESET, c.reinitialisation)}</span>} />
                <Stat label={t({ en: 'Entries in the period', fr: 'Entrées de la période' })} value={num(b.entrees)} />
                {(c.valeur_min !== null || c.valeur_max !== null) && (
                  <Stat label={t({ en: 'Bounds', fr: 'Bornes' })} value={<span class="small">{num(c.valeur_min, 6)} … {num(c.valeur_max, 6)}</span>} />
                )}
              </div>
              <form class="inline" onSubmit={(e) => { e.preventDefault(); setJoueur(draft.trim()); }}>
                {c.reinitialisation !== 'aucune' && (
                  <label class="field">{t({ en: 'Period', fr: 'Période' })}
                    <select value={b.periode ?? ''} onChange={(e) => { setPeriode((e.target as HTMLSelectElement).value); setOffset(0); }}>
                      {b.periodes.some((p) => p.courante) ? null : <option value={b.periode ?? ''}>{periodLabel(b.periode, c.reinitialisation)}</option>}
                      {b.periodes.map((p) => (
                        <option value={p.periode ?? ''}>{periodLabel(p.periode, c.reinitialisation)}{p.courante ? t({ en: ' (current)', fr: ' (en cours)' }) : ''} · {num(p.entrees)}</option>
                      ))}
                    </select>
                  </label>
                )}
                <label class="field">{t({ en: 'Find a player (pseudo, e-mail or id)', fr: 'Trouver un joueur (pseudo, e-mail ou id)' })}
                  <input type="search" value={draft} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
                </label>
                <button type="submit">{t({ en: 'Find', fr: 'Trouver' })}</button>
              </form>
              {b.joueur && (
                <div class="notice player-rank" role="status">
                  <strong><a href={href(jeu, 'players', b.joueur.joueur_id)}>{b.joueur.pseudo}</a></strong>
                  {b.joueur.rang === null
                    ? <span class="muted">{t({ en: 'no score in this period', fr: 'pas de score dans cette période' })}</span>
                    : <>
                      <span>{t({ en: 'rank {r}', fr: 'rang {r}' }, { r: b.joueur.rang })}</span>
                      <span>{t({ en: 'value {v}', fr: 'valeur {v}' }, { v: num(b.joueur.valeur, 6) })}</span>
                      <ConfirmButton label={t({ en: 'Retire', fr: 'Retirer' })} confirm={t({ en: 'Really retire?', fr: 'Vraiment retirer ?' })}
                        action={() => retire(b.joueur!.joueur_id, b.periode)} />
                    </>}
                </div>
              )}
            </Card>
            <Card title={b.courante || c.reinitialisation === 'aucune'
              ? t({ en: 'Top', fr: 'Meilleurs' })
              : t({ en: 'Top of {p}', fr: 'Meilleurs de {p}' }, { p: periodLabel(b.periode, c.reinitialisation) })}>
              <p class="muted small">{t({
                en: 'Ranked as GET /leaderboards/{id}/scores ranks (equal values share a rank). Retire removes the player’s score for this period (audited).',
                fr: 'Classés comme GET /leaderboards/{id}/scores les classe (valeurs égales : même rang). Retirer supprime le score du joueur pour cette période (audité).',
              }, { id: c.id })}</p>
              <DataTable columns={columns} rows={b.lignes} rowKey={(e) => e.joueur_id}
                empty={t({ en: 'No score in this period.', fr: 'Aucun score dans cette période.' })} />
              <Pager offset={offset} limit={LIMIT} more={b.plus} onPage={setOffset} />
            </Card>
          </>
        );
      }}</Show>
    </>
  );
}

function LeaderboardsView({ jeu, rest }: PageProps) {
  const id = rest[0];
  return id ? <BoardView key={id} jeu={jeu} id={id} /> : <BoardsList jeu={jeu} />;
}

export const leaderboardsPage: ConsolePage = {
  id: 'leaderboards',
  label: { en: 'Leaderboards', fr: 'Classements' },
  component: (props) => <LeaderboardsView {...props} />,
};
