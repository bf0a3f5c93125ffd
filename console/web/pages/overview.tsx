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
