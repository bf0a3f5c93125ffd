// The overview page: what the game has now (players, who is online, matches in progress,
// the queues, actions per minute, the error rate) and its activity over 1 h, 24 h or 7 days
// (manette_admin.console_overview through GET /api/games/:jeu/overview), charts drawn by
// uPlot, refreshed every 5 s in place (the charts get new data, they are not drawn again).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './overview.css';
import { useEffect, useRef } from 'preact/hooks';
import type { ConsolePage, PageProps } from '../types.js';
import { api, gamePath, qs } from '../api.js';
import { t, num, useLang, currentLang, type Text } from '../i18n.js';
import { href, navigate } from '../router.js';
import { Card, Show, Stat, useLoad } from '../ui.js';
import { SweepWarning } from './sweep-warning.js';

type Periode = '1h' | '24h' | '7d';
const PERIODS: { id: Periode; label: Text }[] = [
  { id: '1h', label: { en: 'Last hour', fr: 'Dernière heure' } },
  { id: '24h', label: { en: 'Last 24 hours', fr: 'Dernières 24 heures' } },
  { id: '7d', label: { en: 'Last 7 days', fr: '7 derniers jours' } },
];
const REFRESH_MS = 5_000;

type SerieName = 'inscriptions' | 'sessions' | 'joueurs_actifs' | 'parties' | 'actions' | 'requetes' | 'erreurs_client' | 'erreurs_serveur';

interface Overview {
  jeu: string;
  periode: Periode;
  pas_s: number;
  maintenant: string;
  debuts: string[];
  series: Record<SerieName, number[]>;
  totaux: {
    joueurs: number; joueurs_en_ligne: number; sessions_actives: number; parties_en_cours: number;
    files: { mode: string; en_attente: number }[]; actions_par_minute: number;
    requetes: number; erreurs_client: number; erreurs_serveur: number;
  };
  capacite: Capacity;
}

/** console/server/capacity.ts */
interface Capacity {
  plan: 'free' | 'pro' | 'pro-no-cap';
  source: 'realtime_local' | 'estimation';
  mois: string; fin_mois: string;
  messages_mois: number; quota_mois: number; plafond: boolean;
  messages_par_seconde: number | null; limite_par_seconde: number;
  epuisement: string | null; epuise: boolean;
  projection_fin_mois: number | null; depassement_usd: number | null;
  estimation: { actions_mois: number; parties_mois: number; messages_mois: number; messages_par_seconde: number };
  mis_a_jour_le: string | null;
  taille_realtime_messages: number; taille_base: number | null; quota_base: number;
}

/** A line of a chart: its series, its name in both languages, its colour, its axis. */
interface Line { serie: SerieName; label: Text; color: string; scale?: 'y2' }
interface ChartDef { id: string; title: Text; lines: Line[]; right?: Text }

const CHARTS: ChartDef[] = [
  {
    id: 'players', title: { en: 'Players', fr: 'Joueurs' },
    lines: [
      { serie: 'inscriptions', label: { en: 'Registrations', fr: 'Inscriptions' }, color: '#5a4bd6' },
      { serie: 'sessions', label: { en: 'Logins (sessions created)', fr: 'Connexions (sessions créées)' }, color: '#0e7490' },
      { serie: 'joueurs_actifs', label: { en: 'Players who played', fr: 'Joueurs ayant joué' }, color: '#067647' },
    ],
  },
  {
    id: 'matches', title: { en: 'Matches', fr: 'Parties' },
    lines: [
      { serie: 'parties', label: { en: 'Matches created', fr: 'Parties créées' }, color: '#5a4bd6' },
      { serie: 'actions', label: { en: 'Actions (right axis)', fr: 'Actions (axe de droite)' }, color: '#b54708', scale: 'y2' },
    ],
    right: { en: 'actions', fr: 'actions' },
  },
  {
    id: 'requests', title: { en: 'API requests', fr: 'Requêtes de l’API' },
    lines: [
      { serie: 'requetes', label: { en: 'Requests', fr: 'Requêtes' }, color: '#5a4bd6' },
      { serie: 'erreurs_client', label: { en: 'Client errors (4xx)', fr: 'Erreurs client (4xx)' }, color: '#b54708' },
      { serie: 'erreurs_serveur', label: { en: 'Server errors (5xx)', fr: 'Erreurs serveur (5xx)' }, color: '#b42318' },
    ],
  },
];

const locale = () => (currentLang() === 'fr' ? 'fr-FR' : 'en-GB');

/** An x-axis tick: the time for 1 h and 24 h, the day and hour for 7 days. */
function tick(seconds: number, periode: Periode): string {
  const d = new Date(seconds * 1000);
  return periode === '7d'
    ? d.toLocaleString(locale(), { weekday: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
    : d.toLocaleTimeString(locale(), { hour: '2-digit', minute: '2-digit' });
}

/** The bucket under the cursor, in the legend: from its start to its end. */
function bucket(seconds: number, step: number, periode: Periode): string {
  const from = new Date(seconds * 1000);
  const to = new Date((seconds + step) * 1000);
  const time = (d: Date) => d.toLocaleTimeString(locale(), { hour: '2-digit', minute: '2-digit' });
  const day = (d: Date) => d.toLocaleDateString(locale(), { weekday: 'short', day: 'numeric', month: 'short' });
  return periode === '1h' ? `${time(from)}–${time(to)}` : `${day(from)} ${time(from)}–${time(to)}`;
}

/** A y-axis range from 0, at least 0 to 4, with room above the highest value. */
const fromZero: uPlot.Range.Function = (_u, _min, max) => [0, max <= 4 ? 4 : Math.ceil(max * 1.1)];
/** Counts: whole numbers only on the axis, compact (1.5K, 25 k). */
const wholeTicks = (_u: uPlot, splits: number[]) => {
  const compact = new Intl.NumberFormat(locale(), { notation: 'compact', maximumFractionDigits: 1 });
  return splits.map((v) => (Number.isInteger(v) ? compact.format(v) : ''));
};
/** A y axis as wide as its longest label. */
const axisSize = (_u: uPlot, values: string[] | null) =>
  Math.max(36, 22 + 7.5 * Math.max(0, ...(values ?? []).map((v) => v.length)));

function chartData(o: Overview, def: ChartDef): uPlot.AlignedData {
  return [o.debuts.map((d) => Date.parse(d) / 1000), ...def.lines.map((l) => o.series[l.serie])];
}

/**
 * One uPlot chart: made again when the language, the period or the chart changes; new data
 * of the same period only replaces its data (setData: no flicker); its width follows its
 * box (ResizeObserver).
 */
function Chart({ def, data }: { def: ChartDef; data: Overview }) {
  const lang = useLang();
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(data);
  latest.current = data;
  const { periode, pas_s: step } = data;

  useEffect(() => {
    const el = box.current!;
    const axis = { stroke: '#5b6475', grid: { stroke: '#eef0f5' }, ticks: { stroke: '#dfe3ec' }, font: '12px system-ui, sans-serif' };
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 200),
      height: 220,
      cursor: { points: { size: 7 } },
      scales: { x: { time: true }, y: { range: fromZero }, y2: { range: fromZero } },
      series: [
        { label: t({ en: 'Time', fr: 'Heure' }), value: (_u, v) => (v == null ? '—' : bucket(v, step, periode)) },
        ...def.lines.map((l): uPlot.Series => ({
          label: t(l.label), stroke: l.color, width: 2, scale: l.scale ?? 'y',
          fill: l === def.lines[0] ? `${l.color}14` : undefined,
          value: (_u, v) => (v == null ? '—' : num(v)),
        })),
      ],
      axes: [
        { ...axis, values: (_u, splits) => splits.map((s) => tick(s, periode)), space: periode === '7d' ? 90 : 60 },
        { ...axis, scale: 'y', values: wholeTicks, size: axisSize },
        ...(def.right ? [{ ...axis, scale: 'y2', side: 1 as const, values: wholeTicks, size: axisSize, grid: { show: false } }] : []),
      ],
      legend: { live: true },
    };
    const u = new uPlot(opts, chartData(latest.current, def), el);
    plot.current = u;
    const resize = new ResizeObserver(() => {
      const width = Math.max(el.clientWidth, 200);
      if (width !== u.width) u.setSize({ width, height: 220 });
    });
    resize.observe(el);
    return () => { resize.disconnect(); u.destroy(); plot.current = null; };
  }, [lang, periode, step, def]);

  useEffect(() => {
    plot.current?.setData(chartData(data, def));
  }, [data, def]);

  return <div class="overview-chart" ref={box} data-chart={def.id} role="img" aria-label={t(def.title)} />;
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${num((100 * part) / whole, 1)} %` : '—';
}

function Tiles({ o }: { o: Overview }) {
  const period = PERIODS.find((p) => p.id === o.periode)!;
  const errors = o.totaux.erreurs_client + o.totaux.erreurs_serveur;
  return (
    <div class="stats" data-testid="overview-tiles">
      <Stat label={t({ en: 'Players', fr: 'Joueurs' })} value={num(o.totaux.joueurs)} />
      <Stat label={t({ en: 'Online now', fr: 'En ligne' })} value={num(o.totaux.joueurs_en_ligne)}
        hint={t({ en: '{n} sessions used in the last 5 min', fr: '{n} sessions utilisées ces 5 dernières min' }, { n: num(o.totaux.sessions_actives) })} />
      <Stat label={t({ en: 'Matches in progress', fr: 'Parties en cours' })} value={num(o.totaux.parties_en_cours)} />
      <Stat label={t({ en: 'Actions per minute', fr: 'Actions par minute' })} value={num(o.totaux.actions_par_minute, 1)}
        hint={t({ en: 'last 5 minutes', fr: '5 dernières minutes' })} />
      <Stat label={t({ en: 'Error rate', fr: 'Taux d’erreur' })} value={percent(errors, o.totaux.requetes)}
        hint={t({ en: '{c} 4xx · {s} 5xx of {n} requests ({p})', fr: '{c} 4xx · {s} 5xx sur {n} requêtes ({p})' },
          { c: num(o.totaux.erreurs_client), s: num(o.totaux.erreurs_serveur), n: num(o.totaux.requetes), p: t(period.label).toLowerCase() })} />
      {o.totaux.files.map((f) => (
        <Stat key={f.mode} label={t({ en: 'Queue · {mode}', fr: 'File · {mode}' }, { mode: f.mode })} value={num(f.en_attente)}
          hint={t({ en: 'players waiting', fr: 'joueurs en attente' })} />
      ))}
    </div>
  );
}

const PLAN_NAMES: Record<Capacity['plan'], Text> = {
  free: { en: 'Free', fr: 'Free' },
  pro: { en: 'Pro (spend cap on)', fr: 'Pro (plafond de dépenses activé)' },
  'pro-no-cap': { en: 'Pro without spend cap / Team', fr: 'Pro sans plafond / Team' },
};

/** Bytes as kB, MB or GB (ko, Mo, Go in French; powers of 1024, as Supabase's dashboard shows sizes). */
function size(bytes: number): string {
  const units = currentLang() === 'fr' ? ['o', 'ko', 'Mo', 'Go'] : ['B', 'kB', 'MB', 'GB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${num(v, i === 0 || v >= 100 ? 0 : 1)} ${units[i]}`;
}

/** A share of a quota: "< 0.1 %" rather than "0 %" once anything is used. */
function share(part: number, whole: number): string {
  return part > 0 && whole > 0 && (100 * part) / whole < 0.1 ? `< ${num(0.1, 1)} %` : percent(part, whole);
}

/** A bar of part / whole (capped at 100 %), red from 90 %. */
function Gauge({ part, whole, label }: { part: number; whole: number; label: string }) {
  const ratio = whole > 0 ? Math.min(1, part / whole) : 0;
  return (
    <div class={`gauge${ratio >= 0.9 ? ' gauge-high' : ''}`} role="meter" aria-label={label}
      aria-valuemin={0} aria-valuemax={whole} aria-valuenow={Math.min(part, whole)}>
      <span style={{ width: `${(100 * ratio).toFixed(1)}%` }} />
    </div>
  );
}

function day(iso: string): string {
  return new Date(iso).toLocaleString(locale(), { weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' });
}

/** The project's Realtime messages and database against its plan (docs/capacity.md). */
function CapacityCard({ c }: { c: Capacity }) {
  const local = c.source === 'realtime_local';
  const rate = c.messages_par_seconde;
  let runOut: string;
  if (c.epuise) {
    runOut = c.plafond
      ? t({ en: 'Used: Realtime is refused until the month ends', fr: 'Épuisé : Realtime est refusé jusqu’à la fin du mois' })
      : t({ en: 'Used: every further million costs $2.50', fr: 'Épuisé : chaque million de plus coûte 2,50 $' });
  } else if (c.epuisement) {
    runOut = day(c.epuisement);
  } else if (rate === null) {
    runOut = t({ en: 'Rate unknown (local Realtime not running)', fr: 'Rythme inconnu (Realtime local arrêté)' });
  } else {
    runOut = t({ en: 'Not this month', fr: 'Pas ce mois-ci' });
  }
  return (
    <Card title={t({ en: 'Capacity · plan {plan}', fr: 'Capacité · plan {plan}' }, { plan: t(PLAN_NAMES[c.plan]) })}>
      <div class="stats capacity" data-testid="capacity">
        <Stat label={t({ en: 'Realtime messages per second', fr: 'Messages Realtime par seconde' })}
          value={rate === null ? '—' : num(rate, 1)}
          hint={t({ en: 'last minute · plan limit {n}/s', fr: 'dernière minute · limite du plan {n}/s' }, { n: num(c.limite_par_seconde) })} />
        <div class="stat" data-testid="capacity-month">
          <span class="stat-label">{t({ en: 'Realtime messages this month', fr: 'Messages Realtime ce mois-ci' })}</span>
          <span class="stat-value">{num(c.messages_mois)}</span>
          <Gauge part={c.messages_mois} whole={c.quota_mois} label={t({ en: 'Messages this month against the quota', fr: 'Messages du mois par rapport au quota' })} />
          <span class="muted small">
            {t({ en: '{p} of {q} ({cap})', fr: '{p} de {q} ({cap})' }, {
              p: share(c.messages_mois, c.quota_mois), q: num(c.quota_mois),
              cap: c.plafond ? t({ en: 'refused past it', fr: 'refusés au-delà' }) : t({ en: 'then $2.50 per million', fr: 'puis 2,50 $ le million' }),
            })}
          </span>
        </div>
        <Stat label={t({ en: 'Month’s quota runs out', fr: 'Quota du mois épuisé le' })} value={<span class="capacity-date" data-testid="capacity-runout">{runOut}</span>}
          hint={c.projection_fin_mois === null ? undefined
            : t({ en: 'at this rate, {n} messages by the end of the month{cost}', fr: 'à ce rythme, {n} messages à la fin du mois{cost}' },
              { n: num(c.projection_fin_mois), cost: c.depassement_usd ? t({ en: ' (overage ${d})', fr: ' (dépassement {d} $)' }, { d: num(c.depassement_usd, 2) }) : '' })} />
        <div class="stat" data-testid="capacity-database">
          <span class="stat-label">{t({ en: 'Database', fr: 'Base de données' })}</span>
          <span class="stat-value">{c.taille_base === null ? '—' : size(c.taille_base)}</span>
          <Gauge part={c.taille_base ?? 0} whole={c.quota_base} label={t({ en: 'Database size against the plan', fr: 'Taille de la base par rapport au plan' })} />
          <span class="muted small">
            {t({ en: '{p} of {q} · realtime.messages {r}', fr: '{p} de {q} · realtime.messages {r}' },
              { p: c.taille_base === null ? '—' : share(c.taille_base, c.quota_base), q: size(c.quota_base), r: size(c.taille_realtime_messages) })}
          </span>
        </div>
      </div>
      <p class="muted small" data-testid="capacity-source">
        {local
          ? t({
            en: 'Counted by the local Realtime as Supabase bills them (each message sent, plus one per subscriber it reaches), this calendar month (UTC){at}. Sizes: realtime.messages keeps about 3 days of events; past 500 MB of database a Free project turns read-only.',
            fr: 'Comptés par le Realtime local comme Supabase les facture (chaque message envoyé, plus un par abonné qui le reçoit), ce mois civil (UTC){at}. Tailles : realtime.messages garde environ 3 jours d’événements ; au-delà de 500 Mo de base, un projet Free passe en lecture seule.',
          }, { at: c.mis_a_jour_le ? t({ en: ', stored at {t}', fr: ', enregistrés à {t}' }, { t: new Date(c.mis_a_jour_le).toLocaleTimeString(locale()) }) : '' })
          : t({
            en: 'Estimate: Supabase keeps this project’s real usage (dashboard, Usage); the console cannot read it. Counted here from the match history: {a} actions in the {m} matches created this month, each action’s events as the game’s realtime.evenements sends them (by default 2 events, each 1 message plus 1 per participant), as if every participant were subscribed. Spectators and other subscribers are not known (more), nor participants who were not subscribed (fewer): the real count may differ either way.',
            fr: 'Estimation : Supabase tient l’usage réel du projet (tableau de bord, Usage) ; la console ne peut pas le lire. Compté ici depuis l’historique des parties : {a} actions dans les {m} parties créées ce mois-ci, les événements de chaque action tels que realtime.evenements du jeu les envoie (par défaut 2 événements, chacun 1 message plus 1 par participant), comme si chaque participant était abonné. Les spectateurs et autres abonnés ne sont pas connus (plus), ni les participants qui n’étaient pas abonnés (moins) : le compte réel peut différer dans les deux sens.',
          }, { a: num(c.estimation.actions_mois), m: num(c.estimation.parties_mois) })}
      </p>
    </Card>
  );
}

function OverviewView({ jeu, query }: PageProps) {
  useLang();
  const asked = query.get('periode');
  const periode: Periode = asked === '24h' || asked === '7d' ? asked : '1h';
  const loaded = useLoad(() => api.get<Overview>(gamePath(jeu, 'overview') + qs({ periode })), [jeu, periode], REFRESH_MS);
  return (
    <>
      <div class="overview-bar">
        <div class="periods" role="group" aria-label={t({ en: 'Period', fr: 'Période' })}>
          {PERIODS.map((p) => (
            <button type="button" aria-pressed={p.id === periode}
              onClick={() => navigate(`${href(jeu, 'overview')}${p.id === '1h' ? '' : `?periode=${p.id}`}`)}>
              {t(p.label)}
            </button>
          ))}
        </div>
        {loaded.data ? (
          <span class="muted small" aria-live="off">
            {t({ en: 'Updated {at} · every 5 s', fr: 'Mis à jour à {at} · toutes les 5 s' },
              { at: new Date(loaded.data.maintenant).toLocaleTimeString(locale()) })}
          </span>
        ) : null}
      </div>
      <SweepWarning jeu={jeu} />
      <Show loaded={loaded}>
        {(o) => (
          <>
            <Tiles o={o} />
            <CapacityCard c={o.capacite} />
            <div class="overview-charts">
              {CHARTS.map((def) => (
                <Card key={def.id} title={t(def.title)}>
                  <Chart def={def} data={o} />
                </Card>
              ))}
            </div>
            <p class="muted small">
              {t({
                en: 'Buckets of {step}; the last one is still filling. Requests are counted by the API as it answers them and stored every 5 seconds.',
                fr: 'Intervalles de {step} ; le dernier se remplit encore. Les requêtes sont comptées par l’API quand elle y répond et enregistrées toutes les 5 secondes.',
              }, { step: o.pas_s === 60 ? t({ en: '1 minute', fr: '1 minute' }) : o.pas_s === 3600 ? t({ en: '1 hour', fr: '1 heure' }) : t({ en: '6 hours', fr: '6 heures' }) })}
            </p>
          </>
        )}
      </Show>
    </>
  );
}

export const overviewPage: ConsolePage = {
  id: 'overview',
  label: { en: 'Overview', fr: 'Vue d’ensemble' },
  component: OverviewView,
};
