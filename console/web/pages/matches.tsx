// The matches page (docs/console.md#matches): the game's matches, live over Realtime with
// the console's own token (it reads the game's topic, where each new match is announced,
// and the room of every match listed, where each move's `etat` comes); one match with its
// state, participants and history replayed step by step (states computed on the server
// by the match's own rules); an operator's end or cancel (the CLI's match_end /
// match_cancel, audited). The page shows only what the server reads back: an event is a
// hint to re-read (at most once a second), never data, since participants may broadcast
// anything in their room (`diffusion_joueurs`); the socket's frames go through
// realtime-guard.ts first. Realtime delivers at most once: the page also re-reads on every
// join and every 30 s (every 5 s without Realtime).
import { RealtimeClient, type RealtimeChannel } from '@supabase/realtime-js';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, gamePath, qs } from '../api.js';
import { guardedDecode } from '../realtime-guard.js';
import { t, useLang, when } from '../i18n.js';
import { href } from '../router.js';
import type { ConsolePage, PageProps } from '../types.js';
import { Card, ConfirmButton, ErrorBox, Json, Loading, Pager, Show, useLoad, type Loaded } from '../ui.js';

// == Wire types ===================================================================
interface Participant { joueur_id: string; pseudo: string; equipe: number; place?: number; elo?: number | null }
interface ListedMatch {
  id: string; mode_jeu: string; regles: string; statut: string; code_salon: string;
  numero_tour: number; tour_joueur: string | null; tour_expire_le: string | null;
  gagnant_id: string | null; gagnant_equipe: number | null;
  cree_le: string; maj_le: string; termine_le: string | null; nombre_actions: number;
  participants: Participant[];
}
interface MatchList { parties: ListedMatch[]; suivant: boolean }
interface Partie {
  id: string; mode_jeu: string; statut: string; tour_joueur: string | null; numero_tour: number; etat_plateau: unknown;
  participants: Participant[]; gagnant_id: string | null; gagnant_equipe: number | null; code_salon: string;
  cree_le: string; maj_le: string; termine_le: string | null; tour_expire_le?: string | null;
  /** false: ended before the mode's actions_min (docs/matches.md, Matches that count): nothing paid, rated or credited. */
  comptee?: boolean | null;
}
interface HistoryRow { seq: number; joueur_id: string | null; pseudo: string | null; action: string; donnees: unknown; numero_tour: number; joue_le: string }
interface MatchDetail extends Partie { regles: string; actions: HistoryRow[] }
interface Replay {
  partie_id: string; regles: string; total: number; depuis: number; etats: Partie[];
  arret: { numero: number; raison: string; erreur: string | null } | null;
}
interface RealtimeSettings { url: string; key: string; token: string; token_expire_le: string; topic_jeu: string; prefixe_partie: string }

type Statut = 'en_cours' | 'terminee' | 'annulee' | 'all';
const PAGE = 50;
/** How long the console waits between safety re-reads: with Realtime, and without it. */
const SAFETY_MS = 30_000;
const POLL_MS = 5_000;
/** The replay is read in windows of this many states. */
const WINDOW = 100;
/** At most one re-read per this many ms, however many events come (a participant may send hundreds). */
const HINT_GAP_MS = 1_000;

// == Realtime ======================================================================
type LiveState = 'off' | 'connecting' | 'live' | 'error';
/** Per event name, what to do when one comes. No payload is handed over: it is never trusted. */
type Handlers = Record<string, () => void>;

/**
 * `fn`, called at once on a first hint, then at most once per `gapMs` however many hints come
 * (the last one always leads to a call after it). Stable across renders.
 */
function useHint(fn: () => void, gapMs = HINT_GAP_MS): () => void {
  const f = useRef(fn);
  f.current = fn;
  const s = useRef<{ last: number; timer: ReturnType<typeof setTimeout> | undefined }>({ last: 0, timer: undefined });
  useEffect(() => () => { if (s.current.timer) clearTimeout(s.current.timer); }, []);
  return useCallback(() => {
    const st = s.current;
    if (st.timer) return;
    st.timer = setTimeout(() => { st.timer = undefined; st.last = Date.now(); f.current(); }, Math.max(0, st.last + gapMs - Date.now()));
  }, [gapMs]);
}

/**
 * One socket for the page, with the console token (GET /games/:jeu/realtime), renewed a
 * minute before it expires. `join` opens a private channel and tells its state; every
 * (re)join calls `onJoined` so the page re-reads what it may have missed.
 */
class LiveLink {
  private renewTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private constructor(readonly jeu: string, readonly settings: RealtimeSettings, private readonly client: RealtimeClient) {}

  static async open(jeu: string): Promise<LiveLink | null> {
    const settings = await api.get<RealtimeSettings | null>(gamePath(jeu, 'realtime'));
    if (!settings) return null;
    // Every frame goes through the guard before realtime-js reads it (realtime-guard.ts).
    const guard = guardedDecode();
    const client = new RealtimeClient(settings.url, { params: { apikey: settings.key }, decode: guard.decode });
    guard.setInner(client.serializer.decode.bind(client.serializer));
    await client.setAuth(settings.token);
    const link = new LiveLink(jeu, settings, client);
    link.scheduleRenew(settings.token_expire_le);
    return link;
  }

  private scheduleRenew(expires: string): void {
    const left = Date.parse(expires) - Date.now();
    this.renewTimer = setTimeout(() => { void this.renew(); }, Math.max(5_000, Math.min(left - 60_000, left / 2)));
  }

  private async renew(): Promise<void> {
    if (this.closed) return;
    try {
      const fresh = await api.get<RealtimeSettings | null>(gamePath(this.jeu, 'realtime'));
      if (!fresh || this.closed) return;
      await this.client.setAuth(fresh.token);
      this.scheduleRenew(fresh.token_expire_le);
    } catch {
      this.renewTimer = setTimeout(() => { void this.renew(); }, 10_000);
    }
  }

  join(topic: string, handlers: Handlers, onState: (s: LiveState) => void, onJoined: () => void): () => void {
    let stopped = false;
    let channel: RealtimeChannel | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let closes = 0;
    const subscribe = () => {
      const ch = this.client.channel(topic, { config: { private: true } });
      channel = ch;
      for (const [event, cb] of Object.entries(handlers)) ch.on('broadcast', { event }, () => cb());
      onState('connecting');
      ch.subscribe((status) => {
        if (stopped || channel !== ch) return;
        if (status === 'SUBSCRIBED') {
          closes = 0;
          onState('live');
          onJoined();
        } else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') {
          onState('error');
        } else if (status === 'CLOSED') {
          // Closed by the server (an expired token, a quota): joined again, a little later.
          onState('error');
          channel = undefined;
          void this.client.removeChannel(ch).catch(() => undefined);
          retry = setTimeout(() => { if (!stopped) subscribe(); }, Math.min(10_000, 1000 * 2 ** closes++));
        }
      });
    };
    subscribe();
    return () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (channel) void this.client.removeChannel(channel).catch(() => undefined);
    };
  }

  close(): void {
    this.closed = true;
    if (this.renewTimer) clearTimeout(this.renewTimer);
    void this.client.removeAllChannels().catch(() => undefined).then(() => this.client.disconnect());
  }
}

/** The page's LiveLink: undefined while opening, null without Realtime (or if it failed). */
function useLiveLink(jeu: string, enabled: boolean): LiveLink | null | undefined {
  const [link, setLink] = useState<LiveLink | null | undefined>(enabled ? undefined : null);
  useEffect(() => {
    if (!enabled) { setLink(null); return; }
    let alive = true;
    let opened: LiveLink | null = null;
    LiveLink.open(jeu).then((l) => {
      opened = l;
      if (alive) setLink(l); else l?.close();
    }, () => { if (alive) setLink(null); });
    return () => { alive = false; opened?.close(); };
  }, [jeu, enabled]);
  return link;
}

// == Small parts ======================================================================
function statusBadge(statut: string) {
  const text = statut === 'en_cours' ? t({ en: 'in progress', fr: 'en cours' })
    : statut === 'terminee' ? t({ en: 'over', fr: 'terminée' })
      : statut === 'annulee' ? t({ en: 'cancelled', fr: 'annulée' }) : statut;
  return <span class={`badge ${statut === 'en_cours' ? 'ok' : statut === 'annulee' ? 'bad' : 'off'}`}>{text}</span>;
}

function LiveBadge({ state }: { state: LiveState }) {
  useLang();
  if (state === 'live') return <span class="badge live" data-live="on" title={t({ en: 'Updated as it happens, over Realtime', fr: 'Mis à jour en direct, par Realtime' })}>● {t({ en: 'live', fr: 'en direct' })}</span>;
  if (state === 'connecting') return <span class="badge off" data-live="connecting">{t({ en: 'connecting…', fr: 'connexion…' })}</span>;
  if (state === 'error') return <span class="badge bad" data-live="error">{t({ en: 'Realtime interrupted: re-reading every 5 s', fr: 'Realtime interrompu : relecture toutes les 5 s' })}</span>;
  return <span class="badge off" data-live="off">{t({ en: 'no Realtime: refreshed every 5 s', fr: 'sans Realtime : rafraîchi toutes les 5 s' })}</span>;
}

/** Seconds left before `iso`, ticking every second (the server decides; this only shows). */
function Countdown({ iso }: { iso: string | null | undefined }) {
  useLang();
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!iso) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [iso]);
  const at = iso ? Date.parse(iso) : NaN;
  if (!Number.isFinite(at)) return null;
  const left = Math.max(0, Math.ceil((at - now) / 1000));
  return <span class={`countdown${left <= 10 ? ' soon' : ''}`} title={when(iso)}>{t({ en: '{s} s left', fr: 'encore {s} s' }, { s: left })}</span>;
}

const pseudoOf = (ps: Participant[], id: string | null | undefined) =>
  id ? ps.find((p) => p.joueur_id === id)?.pseudo ?? id.slice(0, 8) : null;

function Players({ ps }: { ps: Participant[] }) {
  const teams = [...new Set(ps.map((p) => p.equipe))];
  return <span class="players">{teams.map((team, i) => (
    <span key={team}>{i > 0 ? <span class="muted"> {t({ en: 'vs', fr: 'contre' })} </span> : null}{ps.filter((p) => p.equipe === team).map((p) => p.pseudo).join(', ')}</span>
  ))}</span>;
}

function winnerText(m: { statut: string; gagnant_id: string | null; gagnant_equipe: number | null; participants: Participant[] }): string | null {
  if (m.statut === 'annulee') return t({ en: 'cancelled, no result', fr: 'annulée, sans résultat' });
  if (m.statut !== 'terminee') return null;
  if (m.gagnant_id) return t({ en: '{p} won (team {e})', fr: '{p} a gagné (équipe {e})' }, { p: pseudoOf(m.participants, m.gagnant_id), e: m.gagnant_equipe });
  if (m.gagnant_equipe !== null) return t({ en: 'team {e} won', fr: 'l’équipe {e} a gagné' }, { e: m.gagnant_equipe });
  return t({ en: 'a draw', fr: 'match nul' });
}

// == The list ==========================================================================
function MatchListView({ jeu, session }: PageProps) {
  useLang();
  const [statut, setStatut] = useState<Statut>('en_cours');
  const [offset, setOffset] = useState(0);
  const link = useLiveLink(jeu, session.realtime !== null);
  const [gameLive, setGameLive] = useState<LiveState>('off');
  const live = link && gameLive === 'live';
  const loaded = useLoad(() => api.get<MatchList>(`${gamePath(jeu, 'matches')}${qs({ statut, limit: PAGE, offset })}`),
    [jeu, statut, offset], live ? SAFETY_MS : POLL_MS);
  // The rows are the server's answer, never an event's payload (docs/console.md#matches, "What the page trusts").
  const rows = loaded.data?.parties ?? [];
  const reload = useHint(loaded.reload);

  // The game's topic: a new match → re-read; joined (again) → re-read.
  useEffect(() => {
    if (!link) { setGameLive('off'); return; }
    return link.join(link.settings.topic_jeu, { partie: reload }, setGameLive, reload);
  }, [link, reload]);

  // Each listed match in progress: an `etat` or `action` in its room → re-read the list.
  const watched = rows.filter((r) => r.statut === 'en_cours').map((r) => r.id);
  const watchedKey = watched.join(',');
  useEffect(() => {
    if (!link || watched.length === 0) return;
    const stops = watched.map((id) => link.join(`${link.settings.prefixe_partie}${id}`, { etat: reload, action: reload },
      () => undefined, () => undefined));
    return () => { for (const stop of stops) stop(); };
  }, [link, watchedKey, reload]);

  const statuses: [Statut, string][] = [
    ['en_cours', t({ en: 'In progress', fr: 'En cours' })], ['terminee', t({ en: 'Over', fr: 'Terminées' })],
    ['annulee', t({ en: 'Cancelled', fr: 'Annulées' })], ['all', t({ en: 'All', fr: 'Toutes' })],
  ];
  return (
    <Card title={t({ en: 'Matches', fr: 'Parties' })} actions={<>
      <LiveBadge state={link === undefined ? 'connecting' : link === null ? 'off' : gameLive} />
      <label class="field inline-field">
        <span>{t({ en: 'Status', fr: 'Statut' })}</span>
        <select value={statut} onChange={(e) => { setStatut((e.target as HTMLSelectElement).value as Statut); setOffset(0); }}>
          {statuses.map(([v, label]) => <option value={v}>{label}</option>)}
        </select>
      </label>
      <button type="button" onClick={loaded.reload}>{t({ en: 'Refresh', fr: 'Actualiser' })}</button>
    </>}>
      <Show loaded={loaded}>{() => rows.length === 0
        ? <p class="muted empty">{statut === 'en_cours'
          ? t({ en: 'No match in progress. Matches appear here as matchmaking forms them.', fr: 'Aucune partie en cours. Elles apparaissent ici dès que le matchmaking les forme.' })
          : t({ en: 'No match.', fr: 'Aucune partie.' })}</p>
        : <>
          <div class="table-wrap">
            <table class="matches-table">
              <thead><tr>
                <th scope="col">{t({ en: 'Mode', fr: 'Mode' })}</th>
                <th scope="col">{t({ en: 'Players', fr: 'Joueurs' })}</th>
                <th scope="col" class="num">{t({ en: 'Turn', fr: 'Tour' })}</th>
                <th scope="col">{statut === 'en_cours' ? t({ en: 'To play', fr: 'À jouer' }) : t({ en: 'Result', fr: 'Résultat' })}</th>
                <th scope="col">{t({ en: 'Started', fr: 'Commencée' })}</th>
                {statut !== 'en_cours' ? <th scope="col">{t({ en: 'Status', fr: 'Statut' })}</th> : null}
              </tr></thead>
              <tbody>{rows.map((m) => (
                <tr key={m.id} data-partie={m.id}>
                  <td><a href={href(jeu, 'matches', m.id)}>{m.mode_jeu}</a> <span class="muted small">{m.code_salon}</span></td>
                  <td><Players ps={m.participants} /></td>
                  <td class="num" data-tour>{m.numero_tour}</td>
                  <td data-a-jouer>{m.statut === 'en_cours'
                    ? <>{pseudoOf(m.participants, m.tour_joueur) ?? '—'} <Countdown iso={m.tour_expire_le} /></>
                    : winnerText(m)}</td>
                  <td class="small">{when(m.cree_le)}</td>
                  {statut !== 'en_cours' ? <td>{statusBadge(m.statut)}</td> : null}
                </tr>
              ))}</tbody>
            </table>
          </div>
          <Pager offset={offset} limit={PAGE} more={loaded.data?.suivant ?? false} onPage={setOffset} />
        </>}
      </Show>
      <p class="muted small">{link
        ? t({ en: 'New matches and every move are heard over Realtime, then read from the database (an event itself is never shown); the list is also re-read every 30 s, since Realtime may drop an event.',
          fr: 'Les nouvelles parties et chaque coup sont entendus par Realtime, puis lus dans la base (un événement n’est jamais affiché tel quel) ; la liste est aussi relue toutes les 30 s, car Realtime peut perdre un événement.' })
        : t({ en: 'Without Realtime (`npm start` runs one locally, or set MANETTE_REALTIME_URL), the list is re-read every 5 s.',
          fr: 'Sans Realtime (`npm start` en lance un en local, ou MANETTE_REALTIME_URL), la liste est relue toutes les 5 s.' })}</p>
    </Card>
  );
}

// == One match =============================================================================
const LINES_X = ['X', 'O'];

/** A morpion board (rules `morpion`): 9 cases, the winning line outlined. */
function Morpion({ board }: { board: unknown }) {
  const b = board as { cases?: unknown[]; ligne?: number[] } | null;
  if (!b || !Array.isArray(b.cases) || b.cases.length !== 9) return <Json value={board} max={400} />;
  return (
    <div class="morpion" role="img" aria-label={t({ en: 'Board', fr: 'Plateau' })}>
      {b.cases.map((c, i) => (
        <span key={i} class={`cell${b.ligne?.includes(i) ? ' line' : ''}${typeof c === 'string' ? ` mark-${LINES_X.indexOf(c)}` : ''}`}>
          {typeof c === 'string' ? c : ''}
        </span>
      ))}
    </div>
  );
}

function describeAction(a: HistoryRow | undefined, ps: Participant[]): string {
  if (!a) return t({ en: 'The match as it was created.', fr: 'La partie telle qu’elle a été créée.' });
  const who = a.joueur_id === null ? t({ en: 'the server', fr: 'le serveur' }) : (a.pseudo ?? pseudoOf(ps, a.joueur_id) ?? '?');
  return t({ en: 'Action {n}: {who} — {action} {data}', fr: 'Action {n} : {who} — {action} {data}' },
    { n: a.seq, who, action: a.action, data: JSON.stringify(a.donnees) });
}

function MatchDetailView({ jeu, id, session }: { jeu: string; id: string; session: PageProps['session'] }) {
  useLang();
  const link = useLiveLink(jeu, session.realtime !== null);
  const [roomLive, setRoomLive] = useState<LiveState>('off');
  const live = link && roomLive === 'live';
  const detail = useLoad(() => api.get<MatchDetail>(gamePath(jeu, 'matches', id)), [jeu, id], live ? SAFETY_MS : POLL_MS);
  const total = detail.data?.actions.length;
  // The step shown: null = follow the last one.
  const [step, setStep] = useState<number | null>(null);
  const shown = step ?? total ?? 0;
  const windowStart = Math.floor(shown / WINDOW) * WINDOW;
  // Re-read when the match read back changed (a new action, an end, a cancel), not on an event.
  const replay = useLoad(() => api.get<Replay>(`${gamePath(jeu, 'matches', id, 'replay')}${qs({ depuis: windowStart, limit: WINDOW })}`),
    [jeu, id, windowStart, total, detail.data?.maj_le, detail.data?.statut]);
  const reloads = useRef(() => {});
  reloads.current = () => { detail.reload(); replay.reload(); };
  // An `etat` or `action` in the room only says "re-read the match" (its payload is never read).
  const hint = useHint(detail.reload);

  useEffect(() => {
    if (!link) { setRoomLive('off'); return; }
    return link.join(`${link.settings.prefixe_partie}${id}`, { etat: hint, action: hint }, setRoomLive, hint);
  }, [link, id, hint]);

  return (
    <>
      <p><a href={href(jeu, 'matches')}>← {t({ en: 'All matches', fr: 'Toutes les parties' })}</a></p>
      <Show loaded={detail}>{(m) => (
        <>
          <Card title={<>{t({ en: 'Match {code}', fr: 'Partie {code}' }, { code: m.code_salon })} {statusBadge(m.statut)}</>}
            actions={<LiveBadge state={link === undefined ? 'connecting' : link === null ? 'off' : roomLive} />}>
            <dl class="fields" data-match-state>
              <dt>{t({ en: 'Mode', fr: 'Mode' })}</dt><dd>{m.mode_jeu} <span class="muted">({t({ en: 'rules', fr: 'règles' })} {m.regles})</span></dd>
              <dt>{t({ en: 'Turn', fr: 'Tour' })}</dt><dd data-tour>{m.numero_tour}</dd>
              {m.statut === 'en_cours'
                ? <><dt>{t({ en: 'To play', fr: 'À jouer' })}</dt><dd>{pseudoOf(m.participants, m.tour_joueur) ?? '—'} <Countdown iso={m.tour_expire_le} /></dd></>
                : <><dt>{t({ en: 'Result', fr: 'Résultat' })}</dt><dd data-result>{winnerText(m)}</dd></>}
              {m.statut === 'terminee' && m.comptee === false
                ? <><dt>{t({ en: 'Counted', fr: 'Comptée' })}</dt><dd data-comptee>{t({
                  en: 'no: ended before the mode’s actions_min, so no reward, rating change or win was given',
                  fr: 'non : terminée avant l’actions_min du mode, ni récompense, ni Elo, ni victoire n’ont été donnés' })}</dd></>
                : null}
              <dt>{t({ en: 'Started', fr: 'Commencée' })}</dt><dd>{when(m.cree_le)}</dd>
              {m.termine_le ? <><dt>{t({ en: 'Ended', fr: 'Terminée' })}</dt><dd>{when(m.termine_le)}</dd></> : null}
              <dt>{t({ en: 'Id', fr: 'Id' })}</dt><dd class="mono small">{m.id}</dd>
            </dl>
          </Card>
          <StepViewer m={m} replay={replay} shown={shown} following={step === null} setStep={setStep} />
          <div class="grid">
            <Card title={t({ en: 'Participants ({n})', fr: 'Participants ({n})' }, { n: m.participants.length })}>
              <div class="table-wrap"><table>
                <thead><tr><th scope="col" class="num">{t({ en: 'Seat', fr: 'Place' })}</th><th scope="col" class="num">{t({ en: 'Team', fr: 'Équipe' })}</th>
                  <th scope="col">{t({ en: 'Pseudo', fr: 'Pseudo' })}</th><th scope="col" class="num">Elo</th></tr></thead>
                <tbody>{m.participants.map((p) => (
                  <tr key={p.joueur_id}><td class="num">{p.place}</td><td class="num">{p.equipe}</td>
                    <td><a href={href(jeu, 'players', p.joueur_id)}>{p.pseudo}</a></td>
                    <td class="num">{p.elo === null || p.elo === undefined ? '—' : Math.round(p.elo)}</td></tr>
                ))}</tbody>
              </table></div>
            </Card>
            {m.statut === 'en_cours' ? <StopForms jeu={jeu} m={m} onDone={() => { setStep(null); reloads.current(); }} /> : null}
          </div>
          <HistoryTable m={m} shown={shown} setStep={setStep} />
        </>
      )}</Show>
    </>
  );
}

function StepViewer({ m, replay, shown, following, setStep }: {
  m: MatchDetail; replay: Loaded<Replay>; shown: number; following: boolean; setStep: (s: number | null) => void;
}) {
  useLang();
  const total = m.actions.length;
  const r = replay.data;
  const state = r ? r.etats[shown - r.depuis] : undefined;
  const go = (s: number) => setStep(s >= total ? null : Math.max(0, s));
  return (
    <Card title={t({ en: 'Replay', fr: 'Rejouer' })} actions={<span class="muted small" data-step={shown}>
      {t({ en: 'Step {s} of {n}', fr: 'Étape {s} sur {n}' }, { s: shown, n: total })}{following ? ` · ${t({ en: 'following the match', fr: 'suit la partie' })}` : ''}
    </span>}>
      <div class="stepper" role="group" aria-label={t({ en: 'Steps', fr: 'Étapes' })}>
        <button type="button" onClick={() => go(0)} disabled={shown === 0} title={t({ en: 'First', fr: 'Début' })} data-first>|◀</button>
        <button type="button" onClick={() => go(shown - 1)} disabled={shown === 0} title={t({ en: 'Previous', fr: 'Précédente' })} data-prev>◀</button>
        <input type="range" min={0} max={total} value={shown} aria-label={t({ en: 'Step', fr: 'Étape' })}
          onInput={(e) => go(Number((e.target as HTMLInputElement).value))} />
        <button type="button" onClick={() => go(shown + 1)} disabled={shown >= total} title={t({ en: 'Next', fr: 'Suivante' })} data-next>▶</button>
        <button type="button" onClick={() => go(total)} disabled={shown >= total} title={t({ en: 'Last', fr: 'Fin' })}>▶|</button>
      </div>
      <p class="step-what">{describeAction(shown > 0 ? m.actions[shown - 1] : undefined, m.participants)}</p>
      {replay.error ? <ErrorBox error={replay.error} /> : null}
      {r?.arret && shown >= r.arret.numero ? (
        <p class="notice" role="status">{t({
          en: 'The replay stops at action {n}: {why}. The states after it cannot be rebuilt by the rules as they are now.',
          fr: 'Le rejeu s’arrête à l’action {n} : {why}. Les états suivants ne peuvent pas être recalculés par les règles actuelles.',
        }, { n: r.arret.numero, why: arretText(r.arret) })}</p>
      ) : null}
      {state ? (
        <div class="step-state">
          {m.regles === 'morpion' ? <Morpion board={state.etat_plateau} /> : <pre class="board-json">{JSON.stringify(state.etat_plateau, null, 2)}</pre>}
          <dl class="fields">
            <dt>{t({ en: 'Status', fr: 'Statut' })}</dt><dd>{statusBadge(state.statut)}</dd>
            <dt>{t({ en: 'Turn', fr: 'Tour' })}</dt><dd>{state.numero_tour}</dd>
            <dt>{t({ en: 'To play', fr: 'À jouer' })}</dt><dd>{pseudoOf(state.participants, state.tour_joueur) ?? '—'}</dd>
            {state.statut !== 'en_cours' ? <><dt>{t({ en: 'Result', fr: 'Résultat' })}</dt><dd>{winnerText(state)}</dd></> : null}
            <dt>{t({ en: 'At', fr: 'À' })}</dt><dd>{when(state.maj_le)}</dd>
          </dl>
          <details class="whole-state">
            <summary>{t({ en: 'The whole state (JSON)', fr: 'L’état complet (JSON)' })}</summary>
            <pre data-etat>{JSON.stringify(state, null, 2)}</pre>
          </details>
        </div>
      ) : !(r?.arret && shown >= r.arret.numero) ? <Loading /> : null}
    </Card>
  );
}

function arretText(a: NonNullable<Replay['arret']>): string {
  if (a.raison === 'etat_initial_inconnu') return t({ en: 'the initial state of this old match is not known', fr: 'l’état initial de cette ancienne partie est inconnu' });
  if (a.raison === 'joueur_supprime') return t({ en: 'its player has been deleted since', fr: 'son joueur a été supprimé depuis' });
  if (a.raison === 'regles_refusent') return t({ en: 'the rules refuse it now ({m})', fr: 'les règles la refusent désormais ({m})' }, { m: a.erreur });
  return t({ en: 'the rule function fails on it ({m})', fr: 'la fonction de règles échoue dessus ({m})' }, { m: a.erreur });
}

function HistoryTable({ m, shown, setStep }: { m: MatchDetail; shown: number; setStep: (s: number | null) => void }) {
  useLang();
  return (
    <Card title={t({ en: 'History ({n} actions)', fr: 'Historique ({n} actions)' }, { n: m.actions.length })}>
      {m.actions.length === 0 ? <p class="muted empty">{t({ en: 'No action played yet.', fr: 'Aucune action jouée pour l’instant.' })}</p> : (
        <div class="table-wrap"><table class="history-table">
          <thead><tr><th scope="col" class="num">#</th><th scope="col" class="num">{t({ en: 'Turn', fr: 'Tour' })}</th>
            <th scope="col">{t({ en: 'Player', fr: 'Joueur' })}</th><th scope="col">{t({ en: 'Action', fr: 'Action' })}</th>
            <th scope="col">{t({ en: 'Data', fr: 'Données' })}</th><th scope="col">{t({ en: 'Played', fr: 'Jouée' })}</th></tr></thead>
          <tbody>{m.actions.map((a) => (
            <tr key={a.seq} class={a.seq === shown ? 'current' : undefined}>
              <td class="num"><button type="button" class="link" onClick={() => setStep(a.seq >= m.actions.length ? null : a.seq)}
                title={t({ en: 'Show the state after this action', fr: 'Montrer l’état après cette action' })}>{a.seq}</button></td>
              <td class="num">{a.numero_tour}</td>
              <td>{a.joueur_id === null ? <span class="muted">{t({ en: 'server', fr: 'serveur' })}</span> : a.pseudo ?? a.joueur_id}</td>
              <td><code>{a.action}</code></td>
              <td><Json value={a.donnees} max={60} /></td>
              <td class="small">{when(a.joue_le)}</td>
            </tr>
          ))}</tbody>
        </table></div>
      )}
    </Card>
  );
}

/** End (a winner or a draw, a reason) and cancel (a reason), each confirmed once more. */
function StopForms({ jeu, m, onDone }: { jeu: string; m: MatchDetail; onDone: () => void }) {
  useLang();
  const [result, setResult] = useState<string>('');
  const [endReason, setEndReason] = useState('');
  const [cancelReason, setCancelReason] = useState('');
  const [done, setDone] = useState<string>();
  const end = async () => {
    await api.post(gamePath(jeu, 'matches', m.id, 'end'), {
      ...(result === 'nul' ? { nul: true } : result ? { gagnant: result } : {}),
      raison: endReason.trim() || null,
    });
    setDone(t({ en: 'Match ended.', fr: 'Partie terminée.' }));
    onDone();
  };
  const cancel = async () => {
    await api.post(gamePath(jeu, 'matches', m.id, 'cancel'), { raison: cancelReason.trim() || null });
    setDone(t({ en: 'Match cancelled.', fr: 'Partie annulée.' }));
    onDone();
  };
  return (
    <Card title={t({ en: 'Stop the match', fr: 'Arrêter la partie' })}>
      {done ? <p class="success" role="status">{done}</p> : null}
      <form class="stop-form" data-end onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend>{t({ en: 'End with a result', fr: 'Terminer avec un résultat' })}</legend>
          {m.participants.map((p) => (
            <label class="radio" key={p.joueur_id}>
              <input type="radio" name="resultat" value={p.joueur_id} checked={result === p.joueur_id} onChange={() => setResult(p.joueur_id)} />
              {t({ en: '{p} wins (team {e})', fr: '{p} gagne (équipe {e})' }, { p: p.pseudo, e: p.equipe })}
            </label>
          ))}
          <label class="radio">
            <input type="radio" name="resultat" value="nul" checked={result === 'nul'} onChange={() => setResult('nul')} />
            {t({ en: 'A draw', fr: 'Match nul' })}
          </label>
          <label class="field">
            <span>{t({ en: 'Reason (audit trail only, never shown to players)', fr: 'Raison (journal d’audit seulement, jamais montrée aux joueurs)' })}</span>
            <input type="text" maxLength={1000} value={endReason} onInput={(e) => setEndReason((e.target as HTMLInputElement).value)} />
          </label>
          <ConfirmButton label={t({ en: 'End the match', fr: 'Terminer la partie' })} confirm={t({ en: 'Really end it?', fr: 'Vraiment terminer ?' })}
            action={end} disabled={result === ''} />
        </fieldset>
      </form>
      <form class="stop-form" data-cancel onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend>{t({ en: 'Cancel without a result', fr: 'Annuler sans résultat' })}</legend>
          <p class="muted small">{t({ en: 'No win counted, no rating moved; the players are free at once.', fr: 'Aucune victoire comptée, aucun classement modifié ; les joueurs sont libres aussitôt.' })}</p>
          <label class="field">
            <span>{t({ en: 'Reason (audit trail only)', fr: 'Raison (journal d’audit seulement)' })}</span>
            <input type="text" maxLength={1000} value={cancelReason} onInput={(e) => setCancelReason((e.target as HTMLInputElement).value)} />
          </label>
          <ConfirmButton label={t({ en: 'Cancel the match', fr: 'Annuler la partie' })} confirm={t({ en: 'Really cancel it?', fr: 'Vraiment annuler ?' })} action={cancel} />
        </fieldset>
      </form>
    </Card>
  );
}

function MatchesView(props: PageProps) {
  const id = props.rest[0];
  // A stale step or filter must not survive a change of match.
  const key = useMemo(() => `${props.jeu}/${id ?? ''}`, [props.jeu, id]);
  if (id) return <MatchDetailView key={key} jeu={props.jeu} id={id} session={props.session} />;
  return <MatchListView key={key} {...props} />;
}

export const matchesPage: ConsolePage = {
  id: 'matches',
  label: { en: 'Matches', fr: 'Parties' },
  component: MatchesView,
};
