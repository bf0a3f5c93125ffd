// The audit page: every admin write of the game (CLI and console alike), newest first —
// when, who, the command, a readable summary, and its details (before / after) unfolded on
// demand. Paged by id ("Older"). Server: console/server/routes/audit.ts.
import { useState } from 'preact/hooks';
import type { ConsolePage, PageProps } from '../types.js';
import { api, gamePath, qs } from '../api.js';
import { num, t, useLang, when } from '../i18n.js';
import { Card, DataTable, Show, useLoad } from '../ui.js';

const PAGE = 50;

interface AuditRow { id: number; at: string; operator: string; db_user: string; command: string; details: Record<string, any> }
interface AuditPage { lignes: AuditRow[]; plus: boolean }

const short = (v: unknown) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? '—' : s.length > 40 ? `${s.slice(0, 37)}…` : s;
};
const keyTail = (k: unknown) => (typeof k === 'string' && k.length > 16 ? `${k.slice(0, 12)}…${k.slice(-4)}` : String(k));

/** The fields that differ between `avant` and `apres`: "field: a → b". */
function changes(avant: unknown, apres: unknown): string {
  if (!avant || !apres || typeof avant !== 'object' || typeof apres !== 'object') return '';
  const a = avant as Record<string, unknown>, b = apres as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => `${k}: ${short(a[k] ?? null)} → ${short(b[k] ?? null)}`).join(', ');
}

/** One line saying what a command did, from its details. */
export function summary(row: AuditRow): string {
  const d = row.details ?? {};
  switch (row.command) {
    case 'keys create': return t({ en: 'Key {k} created', fr: 'Clé {k} créée' }, { k: keyTail(d.cle) });
    case 'keys revoke': return t({ en: 'Key {k} revoked', fr: 'Clé {k} révoquée' }, { k: keyTail(d.cle) });
    case 'players revoke-sessions': return t({ en: '{p}: {n} session(s) revoked', fr: '{p} : {n} session(s) révoquée(s)' }, { p: d.pseudo, n: d.sessions_revoquees });
    case 'players revoke-session': return t({ en: '{p}: one session revoked', fr: '{p} : une session révoquée' }, { p: d.pseudo });
    case 'players ban': return `${d.jusqu_a
      ? t({ en: '{p}: banned until {d}', fr: '{p} : suspendu jusqu’au {d}' }, { p: d.pseudo, d: when(d.jusqu_a) })
      : t({ en: '{p}: banned until unbanned', fr: '{p} : suspendu jusqu’à la levée' }, { p: d.pseudo })} — “${d.raison}”`;
    case 'players unban': return t({ en: '{p}: suspension lifted', fr: '{p} : suspension levée' }, { p: d.pseudo });
    case 'import': return t({ en: 'Table {tb}: {i} inserted, {u} updated, {s} deleted ({m})', fr: 'Table {tb} : {i} insérée(s), {u} mise(s) à jour, {s} supprimée(s) ({m})' },
      { tb: d.table, i: num(d.inserees), u: num(d.mises_a_jour), s: num(d.supprimees), m: d.mode });
    case 'rows delete': return t({ en: 'Table {tb}: {n} row(s) deleted', fr: 'Table {tb} : {n} ligne(s) supprimée(s)' }, { tb: d.table, n: num(d.supprimees) });
    case 'match end':
    case 'match cancel': {
      const base = t({ en: 'Match {id} ({mode}): {from} → {to}', fr: 'Partie {id} ({mode}) : {from} → {to}' },
        { id: String(d.partie_id ?? '').slice(0, 8), mode: d.mode_jeu, from: d.avant?.statut, to: d.apres?.statut });
      return d.raison ? `${base} — “${d.raison}”` : base;
    }
    case 'panel save': {
      const part = (k: 'theme' | 'textes') => changes(d.avant?.[k] ?? {}, d.apres?.[k] ?? {});
      return [part('theme'), part('textes')].filter(Boolean).join(', ') || t({ en: 'Panel saved unchanged', fr: 'Panneau enregistré sans changement' });
    }
    case 'apply': return t({ en: 'Game file applied ({p} changed)', fr: 'Fichier du jeu appliqué ({p} changé)' }, { p: (d.parties ?? []).join(', ') || '—' });
    case 'row update': return t({ en: 'Table {tb}: {c}', fr: 'Table {tb} : {c}' }, { tb: d.table, c: changes(d.avant ?? {}, d.apres ?? {}) });
    case 'row insert': return t({ en: 'Table {tb}: one row added', fr: 'Table {tb} : une ligne ajoutée' }, { tb: d.table });
    case 'leaderboard retire': return t({ en: '{b}: the score of {p} removed ({v})', fr: '{b} : le score de {p} retiré ({v})' },
      { b: d.classement, p: d.pseudo ?? d.joueur_id, v: d.avant?.valeur });
    case 'guests purge failed': return t({
      en: 'Guest {id} not purged ({s}: {e}); tried again after {d}',
      fr: 'Invité {id} non purgé ({s} : {e}) ; nouvel essai après le {d}' },
      { id: String(d.joueur_id ?? '').slice(0, 8), s: d.sqlstate, e: short(d.erreur), d: when(d.nouvel_essai_apres) });
    default: return changes(d.avant, d.apres);
  }
}

function Details({ row }: { row: AuditRow }) {
  useLang();
  const { avant, apres, ...rest } = row.details ?? {};
  const hasDiff = 'avant' in (row.details ?? {}) || 'apres' in (row.details ?? {});
  return (
    <details class="audit-details">
      <summary>{t({ en: 'Details', fr: 'Détails' })}</summary>
      {Object.keys(rest).length > 0 ? <pre>{JSON.stringify(rest, null, 2)}</pre> : null}
      {hasDiff ? (
        <div class="before-after">
          <div><h3>{t({ en: 'Before', fr: 'Avant' })}</h3><pre>{JSON.stringify(avant ?? null, null, 2)}</pre></div>
          <div><h3>{t({ en: 'After', fr: 'Après' })}</h3><pre>{JSON.stringify(apres ?? null, null, 2)}</pre></div>
        </div>
      ) : null}
    </details>
  );
}

function AuditPageView({ jeu }: PageProps) {
  useLang();
  // The ids the pages shown so far started before ([] : the newest page).
  const [cursors, setCursors] = useState<number[]>([]);
  const avant = cursors[cursors.length - 1];
  const page = useLoad(() => api.get<AuditPage>(gamePath(jeu, 'audit') + qs({ limit: PAGE, avant })), [jeu, avant]);
  return (
    <Card title={t({ en: 'Audit trail', fr: 'Journal d’audit' })}
      actions={<button type="button" onClick={() => (cursors.length ? setCursors([]) : page.reload())}>
        {cursors.length ? t({ en: 'Newest', fr: 'Les plus récentes' }) : t({ en: 'Refresh', fr: 'Actualiser' })}</button>}>
      <p class="muted small">{t({
        en: 'Every admin write of this game, from the console or the CLI: who, when, what, before and after. Reads are not recorded.',
        fr: 'Chaque écriture d’administration de ce jeu, depuis la console ou la CLI : qui, quand, quoi, avant et après. Les lectures ne sont pas enregistrées.',
      })}</p>
      <Show loaded={page}>{(data) => (
        <>
          <DataTable<AuditRow>
            rows={data.lignes} rowKey={(r) => String(r.id)}
            empty={t({ en: 'No admin write yet.', fr: 'Aucune écriture d’administration pour l’instant.' })}
            columns={[
              { label: t({ en: 'When', fr: 'Quand' }), cell: (r) => <span class="nowrap">{when(r.at)}</span> },
              { label: t({ en: 'Operator', fr: 'Opérateur' }), cell: (r) => <>{r.operator}{r.db_user !== r.operator ? <div class="muted small">{r.db_user}</div> : null}</>, class: 'wrap' },
              { label: t({ en: 'Command', fr: 'Commande' }), cell: (r) => <code class="nowrap">{r.command}</code> },
              { label: t({ en: 'What', fr: 'Quoi' }), cell: (r) => <><div>{summary(r)}</div><Details row={r} /></>, class: 'wrap audit-what' },
            ]} />
          <nav class="pager" aria-label={t({ en: 'Pages', fr: 'Pages' })}>
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>{t({ en: '← Newer', fr: '← Plus récentes' })}</button>
            <button type="button" disabled={!data.plus} onClick={() => setCursors([...cursors, data.lignes[data.lignes.length - 1]!.id])}>{t({ en: 'Older →', fr: 'Plus anciennes →' })}</button>
          </nav>
        </>
      )}</Show>
    </Card>
  );
}

export const auditPage: ConsolePage = {
  id: 'audit',
  label: { en: 'Audit', fr: 'Audit' },
  component: AuditPageView,
};
