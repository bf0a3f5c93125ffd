// The Panels page: the game's login and matchmaking panels, themed and worded. Every theme
// key and every text is edited here, and the REAL <manette-login> and <manette-matchmaking>
// of the SDK (sdk/src/panels, bundled into the console) show the draft live, in French
// and English, at a desktop width and in a 360 px phone frame. The config stays code:
// Save writes the `panel` part of the console's game file and applies the file (PUT
// /games/:jeu/panel → manette_admin.panel_apply, audited `panel save`); without a file of
// this game, the page gives the JSON to paste into it.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ConsoleApiError, gamePath } from '../api.js';
import { t, useLang, type Lang } from '../i18n.js';
import { Card, ConfirmButton, ErrorBox, Show, useLoad } from '../ui.js';
import type { ConsolePage, PageProps } from '../types.js';
import '../../../sdk/src/panels/index.js';
import { DEFAULT_TEXTS } from '../../../sdk/src/panels/texts.js';
import type { Joueur, MatchStatus, PanelClient, PanelData } from '../../../sdk/src/panels/base.js';
import type { ManetteLogin } from '../../../sdk/src/panels/login.js';
import type { ManetteMatchmaking } from '../../../sdk/src/panels/matchmaking.js';

type Dict = Record<string, string>;
/** A text of panel.textes: one for every language, or one per language (docs/api.md, Texts per language). */
type PerLanguage = { fr?: string; en?: string };
type Text = string | PerLanguage;
type Texts = Record<string, Text>;
interface Panel { theme: Dict; textes: Texts }
interface FileState {
  chemin: string; version: string | null; jeu: string | null; panel: unknown; meme_jeu: boolean; en_phase: boolean;
  parties_differentes: string[]; erreur: { code: string; message: string } | null;
}
interface PanelState {
  jeu: string;
  panel: { theme?: Dict; textes?: Texts } | null;
  effectif: { theme: Record<string, string | null>; textes: Record<Lang, Dict> };
  defauts: { theme: Record<string, string | null>; textes: Record<Lang, Dict> };
  config: { nom?: string; modes?: Record<string, unknown> };
  fichier: FileState | null;
}
interface Saved { jeu: string; fichier: string; avant: unknown; apres: unknown; version: string; contenu: string }

/** The theme keys of GET /panel, in the order of docs/sdk.md, with what each colours. */
const THEME_KEYS: { key: string; color?: boolean; what: { en: string; fr: string } }[] = [
  { key: 'couleur_primaire', color: true, what: { en: 'buttons, links', fr: 'boutons, liens' } },
  { key: 'couleur_secondaire', color: true, what: { en: 'focus ring, spinner', fr: 'anneau de focus, indicateur' } },
  { key: 'couleur_fond', color: true, what: { en: 'the card', fr: 'la carte' } },
  { key: 'couleur_surface', color: true, what: { en: 'fields, card border', fr: 'champs, bord de la carte' } },
  { key: 'couleur_texte', color: true, what: { en: 'text', fr: 'texte' } },
  { key: 'couleur_texte_doux', color: true, what: { en: 'secondary text, field borders', fr: 'texte secondaire, bords des champs' } },
  { key: 'couleur_erreur', color: true, what: { en: 'errors', fr: 'erreurs' } },
  { key: 'couleur_succes', color: true, what: { en: '“match found”', fr: '« partie trouvée »' } },
  { key: 'police', what: { en: 'font family (CSS)', fr: 'police (CSS)' } },
  { key: 'rayon_bordure', what: { en: 'corner radius (CSS length)', fr: 'arrondi des coins (longueur CSS)' } },
  { key: 'logo_url', what: { en: 'logo on top of each panel (none: no logo)', fr: 'logo en haut de chaque panneau (aucun : pas de logo)' } },
];

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
/** Only string values (what the file's schema accepts), as a fresh object. */
const strings = (v: unknown): Dict => Object.fromEntries(Object.entries(isObject(v) ? v : {}).filter(([, x]) => typeof x === 'string')) as Dict;
const isPerLanguage = (v: unknown): v is PerLanguage => isObject(v) && Object.entries(v).every(([k, x]) => (k === 'fr' || k === 'en') && typeof x === 'string');
/** The texts the file's schema accepts (a string, or {fr?, en?}), as a fresh object. */
const textsOf = (v: unknown): Texts => Object.fromEntries(Object.entries(isObject(v) ? v : {}).filter(([, x]) => typeof x === 'string' || isPerLanguage(x))) as Texts;
/** A text in `lang`, the other language when it is missing (as the API's manette.text_in). */
const textIn = (v: Text | undefined, lang: Lang): string | undefined =>
  typeof v === 'string' || v === undefined ? v : lang === 'en' ? v.en ?? v.fr : v.fr ?? v.en;
const panelOf = (v: unknown): Panel => ({ theme: strings(isObject(v) ? v.theme : {}), textes: textsOf(isObject(v) ? v.textes : {}) });
const samePanel = (a: Panel, b: Panel) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
function sortKeys(p: Panel): Panel {
  const sorted = <T,>(d: Record<string, T>): Record<string, T> => Object.fromEntries(Object.keys(d).sort().map((k) => {
    const v = d[k]!;
    return [k, isObject(v) ? sorted(v) as T : v];
  }));
  return { theme: sorted(p.theme), textes: sorted(p.textes) };
}
/** The file's JSON of the panel part (what Save writes, what to paste). */
const panelJson = (p: Panel) => JSON.stringify({ panel: p }, null, 2).split('\n').slice(1, -1).join('\n').replace(/^ {2}/gm, '');

/** A colour the colour picker can show: #rrggbb, #rgb expanded; otherwise undefined. */
function pickerValue(v: string | null | undefined): string | undefined {
  if (!v) return undefined;
  if (/^#[0-9a-f]{6}$/i.test(v)) return v.toLowerCase();
  const m = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(v);
  return m ? `#${m[1]}${m[1]}${m[2]}${m[2]}${m[3]}${m[3]}`.toLowerCase() : undefined;
}

// == The preview's clients ================================================================
// What the real elements call, answered here: nothing reaches a server. The login panel
// is signed out (or shows a sample player); its sign in and sign up are refused with
// "preview". The matchmaking panel's player is signed in; Play moves to "waiting" and
// Cancel back, without any queue.

type LoginView = 'login' | 'register' | 'player';
type MatchView = 'idle' | 'waiting' | 'matched' | 'signed-out';
const SAMPLE: Joueur = { id: '00000000-0000-4000-8000-000000000001', pseudo: 'Camille' };

function previewClient(lang: Lang, panel: PanelData, player: Joueur | null, status: MatchView): PanelClient {
  const refuse = () => Promise.reject({ code: 'preview', message: lang === 'fr' ? 'Aperçu : rien n’est envoyé.' : 'Preview: nothing is sent.' });
  const statusOf = (v: MatchView): MatchStatus => v === 'waiting' ? { status: 'waiting', queue_id: 'preview', position: 3 }
    : v === 'matched' ? { status: 'matched', partie_id: 'preview', code_salon: 'K7Q2XM', equipe: 1,
      participants: [{ joueur_id: SAMPLE.id, pseudo: SAMPLE.pseudo, equipe: 1 }, { joueur_id: 'preview-2', pseudo: 'Noé', equipe: 2 }] }
      : { status: 'idle' };
  let now: MatchView = status;
  return {
    lang,
    auth: {
      player,
      login: refuse, register: refuse, loginWithGoogle: refuse,
      restore: () => Promise.resolve(player),
      logout: () => Promise.resolve({}),
      onChange: () => () => {},
    },
    panel: () => Promise.resolve(panel),
    matchmaking: {
      join: () => { now = 'waiting'; return Promise.resolve(statusOf(now)); },
      status: () => Promise.resolve(statusOf(now)),
      leave: () => { now = 'idle'; return Promise.resolve({}); },
      // Never matched by itself; ends when the panel stops waiting.
      waitForMatch: (opts) => new Promise((_resolve, reject) => {
        opts?.signal?.addEventListener('abort', () => reject({ code: 'aborted', message: 'aborted' }));
      }),
    },
  };
}

/** GET /panel's answer for a draft: the server's defaults, then the draft's keys. */
function effective(state: PanelState, draft: Panel, lang: Lang): { theme: Record<string, string | null>; textes: Dict } {
  return {
    theme: { ...state.defauts.theme, ...draft.theme },
    textes: { ...DEFAULT_TEXTS[lang], ...state.defauts.textes[lang],
      ...Object.fromEntries(Object.entries(draft.textes).map(([k, v]) => [k, textIn(v, lang) ?? ''])) },
  };
}

/** One real panel element, its client and its draft: created once, updated in place. */
function LivePanel({ kind, lang, state, draft, view, mode }: {
  kind: 'login' | 'matchmaking'; lang: Lang; state: PanelState; draft: Panel; view: LoginView | MatchView; mode: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const el = useRef<ManetteLogin | ManetteMatchmaking | null>(null);
  const eff = effective(state, draft, lang);
  useEffect(() => {
    const e = document.createElement(kind === 'login' ? 'manette-login' : 'manette-matchmaking');
    e.setAttribute('lang', lang);
    e.setAttribute('data-preview', `${kind}-${lang}`);
    el.current = e;
    box.current!.replaceChildren(e);
    return () => e.remove();
  }, [kind, lang]);
  // The draft: the element's own theme and texts, which win over what its client says.
  useEffect(() => {
    const e = el.current!;
    e.theme = eff.theme;
    e.textes = eff.textes;
  });
  // The view: a new client (a panel restarts on a new client), then the view asked for.
  useEffect(() => {
    const e = el.current!;
    if (kind === 'matchmaking') e.setAttribute('mode', mode);
    const player = kind === 'login' ? (view === 'player' ? SAMPLE : null) : (view === 'signed-out' ? null : SAMPLE);
    e.client = previewClient(lang, { ...eff, google_client_id: null }, player, kind === 'matchmaking' ? view as MatchView : 'idle');
    // A login panel keeps its view across clients: say it each time.
    if (kind === 'login' && view !== 'player') (e as ManetteLogin).show(view as 'login' | 'register');
  }, [kind, lang, view, mode]);
  return <div class="pn-element" ref={box} />;
}

// == The editor ===============================================================

function FieldError({ id, errors }: { id: string; errors: Dict }) {
  const m = errors[id];
  return m ? <p class="pn-field-error" id={`${id}-erreur`}>{m}</p> : null;
}

function ThemeEditor({ state, draft, set, errors }: { state: PanelState; draft: Panel; set: (p: Panel) => void; errors: Dict }) {
  useLang();
  const put = (key: string, value: string | undefined) => {
    const theme = { ...draft.theme };
    if (value === undefined || value === '') delete theme[key]; else theme[key] = value;
    set({ ...draft, theme });
  };
  const known = new Set(THEME_KEYS.map((k) => k.key));
  const extra = Object.keys(draft.theme).filter((k) => !known.has(k));
  return (
    <div class="pn-rows">
      {THEME_KEYS.map(({ key, color, what }) => {
        const id = `panel.theme.${key}`;
        const value = draft.theme[key];
        const fallback = state.defauts.theme[key];
        return (
          <div class="pn-row" key={key}>
            <label class="pn-key" for={id}><code>{key}</code><span class="muted small">{t(what)}</span></label>
            <div class="pn-value">
              {color ? (
                <input type="color" class="pn-color" aria-label={t({ en: '{k}: colour picker', fr: '{k} : choix de la couleur' }, { k: key })}
                  value={pickerValue(value) ?? pickerValue(fallback) ?? '#000000'}
                  onInput={(e) => put(key, (e.target as HTMLInputElement).value)} />
              ) : null}
              <input id={id} type="text" value={value ?? ''} placeholder={fallback ?? t({ en: '(none)', fr: '(aucun)' })}
                aria-invalid={errors[id] ? 'true' : undefined} aria-describedby={errors[id] ? `${id}-erreur` : undefined}
                onInput={(e) => put(key, (e.target as HTMLInputElement).value)} />
              <button type="button" class="pn-reset" disabled={value === undefined} onClick={() => put(key, undefined)}
                title={t({ en: 'Back to the default: {d}', fr: 'Revenir au défaut : {d}' }, { d: fallback ?? t({ en: '(none)', fr: '(aucun)' }) })}>
                {t({ en: 'Default', fr: 'Défaut' })}
              </button>
              <FieldError id={id} errors={errors} />
            </div>
          </div>
        );
      })}
      {extra.map((key) => {
        const id = `panel.theme.${key}`;
        return (
          <div class="pn-row" key={key}>
            <label class="pn-key" for={id}><code>{key}</code><span class="muted small">{t({ en: 'the game’s own key (a CSS custom property)', fr: 'clé propre au jeu (une propriété CSS)' })}</span></label>
            <div class="pn-value">
              <input id={id} type="text" value={draft.theme[key] ?? ''} aria-invalid={errors[id] ? 'true' : undefined}
                onInput={(e) => put(key, (e.target as HTMLInputElement).value)} />
              <button type="button" class="pn-reset" onClick={() => put(key, undefined)}>{t({ en: 'Remove', fr: 'Retirer' })}</button>
              <FieldError id={id} errors={errors} />
            </div>
          </div>
        );
      })}
    </div>
  );
}

function TextsEditor({ state, draft, set, errors }: { state: PanelState; draft: Panel; set: (p: Panel) => void; errors: Dict }) {
  const lang = useLang();
  const put = (key: string, value: Text | undefined) => {
    const textes = { ...draft.textes };
    if (value === undefined || value === '') delete textes[key]; else textes[key] = value;
    set({ ...draft, textes });
  };
  // One language of a text given per language; both empty: the key goes.
  const putIn = (key: string, l: Lang, value: string) => {
    const was = draft.textes[key];
    const now: PerLanguage = { ...(isPerLanguage(was) ? was : {}) };
    if (value === '') delete now[l]; else now[l] = value;
    put(key, now.fr === undefined && now.en === undefined ? undefined : now);
  };
  // In the order of docs/sdk.md (the SDK's list); keys the server adds later come after.
  const order = Object.keys(DEFAULT_TEXTS.fr);
  const serverKeys = Object.keys(state.defauts.textes.fr);
  const server = [...order.filter((k) => serverKeys.includes(k)), ...serverKeys.filter((k) => !order.includes(k))];
  const sdk = order.filter((k) => !server.includes(k));
  const extra = Object.keys(draft.textes).filter((k) => !server.includes(k) && !sdk.includes(k));
  const row = (key: string, own: boolean) => {
    const id = `panel.textes.${key}`;
    const fr = state.defauts.textes.fr[key] ?? DEFAULT_TEXTS.fr[key];
    const en = state.defauts.textes.en[key] ?? DEFAULT_TEXTS.en[key];
    const value = draft.textes[key];
    const perLanguage = isPerLanguage(value);
    // A text given per language: one field per language (FR, EN); "One text" goes back to a
    // single text for both (the French one). A single text: "Per language" splits it.
    const inputs = perLanguage ? (['fr', 'en'] as Lang[]).map((l) => (
      <label class="pn-lang" key={l}><abbr title={l === 'fr' ? 'français' : 'English'}>{l.toUpperCase()}</abbr>
        <input id={`${id}.${l}`} type="text" lang={l} value={value[l] ?? ''} placeholder={(l === 'fr' ? fr : en) ?? ''}
          aria-invalid={errors[`${id}.${l}`] ? 'true' : undefined} aria-describedby={`${id}-defauts`}
          onInput={(e) => putIn(key, l, (e.target as HTMLInputElement).value)} />
      </label>
    )) : (
      <input id={id} type="text" value={value ?? ''} placeholder={(lang === 'fr' ? fr : en) ?? ''}
        aria-invalid={errors[id] ? 'true' : undefined} aria-describedby={`${id}-defauts`}
        onInput={(e) => put(key, (e.target as HTMLInputElement).value)} />
    );
    return (
      <div class="pn-row" key={key}>
        <label class="pn-key" for={perLanguage ? `${id}.fr` : id}><code>{key}</code>{own ? <span class="muted small">{t({ en: 'the game’s own key', fr: 'clé propre au jeu' })}</span> : null}</label>
        <div class="pn-value">
          {perLanguage ? <div class="pn-langs">{inputs}</div> : inputs}
          <button type="button" class="pn-reset" disabled={value === undefined} onClick={() => put(key, undefined)}>
            {own ? t({ en: 'Remove', fr: 'Retirer' }) : t({ en: 'Default', fr: 'Défaut' })}
          </button>
          <button type="button" class="pn-reset" data-split={key}
            onClick={() => put(key, perLanguage ? textIn(value, 'fr') : { fr: value ?? fr ?? '', en: value ?? en ?? '' })}>
            {perLanguage ? t({ en: 'One text', fr: 'Un seul texte' }) : t({ en: 'Per language', fr: 'Par langue' })}
          </button>
          {fr !== undefined ? (
            <p class="pn-defaults muted small" id={`${id}-defauts`}>
              <span lang="fr"><abbr title="français">FR</abbr> {fr}</span><span lang="en"><abbr title="English">EN</abbr> {en}</span>
            </p>
          ) : null}
          <FieldError id={id} errors={errors} />
          {perLanguage ? (['fr', 'en'] as Lang[]).map((l) => <FieldError key={l} id={`${id}.${l}`} errors={errors} />) : null}
        </div>
      </div>
    );
  };
  return (
    <>
      <p class="notice small">{t({
        en: 'A text set here replaces the default in French AND in English; “Per language” gives it one text per language ({"fr": …, "en": …} in the file: GET /panel answers the player’s, the other one when it is missing). Leave a text empty to keep the default of each language (shown under it). Placeholders in braces ({position}, {code_salon}, {pseudo}, {pseudos}) are filled in by the SDK.',
        fr: 'Un texte saisi ici remplace le défaut en français ET en anglais ; « Par langue » lui donne un texte par langue ({"fr": …, "en": …} dans le fichier : GET /panel répond celui du joueur, l’autre s’il manque). Laisse un texte vide pour garder le défaut de chaque langue (affiché dessous). Les marques entre accolades ({position}, {code_salon}, {pseudo}, {pseudos}) sont remplies par le SDK.',
      }, { position: '{position}', code_salon: '{code_salon}', pseudo: '{pseudo}', pseudos: '{pseudos}' })}</p>
      <div class="pn-rows pn-stacked">{server.map((k) => row(k, false))}</div>
      <h3>{t({ en: 'The SDK’s own texts (a game may set them too)', fr: 'Textes propres au SDK (un jeu peut aussi les fixer)' })}</h3>
      <div class="pn-rows pn-stacked">{sdk.map((k) => row(k, false))}{extra.map((k) => row(k, true))}</div>
    </>
  );
}

// == The file / database state ============================================================

function FileStatus({ state, draft, onApplied }: { state: PanelState; draft: Panel; onApplied: () => void }) {
  useLang();
  const f = state.fichier;
  if (!f) {
    return (
      <div class="notice" data-state="no-file">
        <p><strong>{t({ en: 'No game file: the console cannot save.', fr: 'Pas de fichier de jeu : la console ne peut pas enregistrer.' })}</strong></p>
        <p class="small">{t({
          en: 'The config stays code. Copy the panel part below into the game file, then run npx manette apply game.json. (Start the console with --jeu game.json to save from here.)',
          fr: 'La config reste du code. Copie la partie panel ci-dessous dans le fichier du jeu, puis lance npx manette apply game.json. (Lance la console avec --jeu game.json pour enregistrer d’ici.)',
        })}</p>
      </div>
    );
  }
  if (f.erreur && !f.meme_jeu) {
    return (
      <div class="error" role="alert" data-state="file-error">
        <p><strong>{t({ en: 'The game file cannot be used: {p}', fr: 'Le fichier du jeu est inutilisable : {p}' }, { p: f.chemin })}</strong></p>
        <pre>{f.erreur.message}</pre>
      </div>
    );
  }
  if (!f.meme_jeu) {
    return (
      <div class="notice" data-state="other-game">
        <p><strong>{t({ en: 'The console’s game file is another game’s.', fr: 'Le fichier de jeu de la console est celui d’un autre jeu.' })}</strong></p>
        <p class="small">{t({
          en: '{p} is the file of “{j}”. Copy the panel part below into this game’s file, then run npx manette apply on it.',
          fr: '{p} est le fichier de « {j} ». Copie la partie panel ci-dessous dans le fichier de ce jeu, puis lance npx manette apply dessus.',
        }, { p: f.chemin, j: f.jeu })}</p>
      </div>
    );
  }
  const others = f.parties_differentes.filter((p) => p !== 'panel');
  const filePanel = panelOf(f.panel);
  const changed = !samePanel(filePanel, draft);
  return (
    <div data-state={f.erreur ? 'file-invalid' : others.length ? 'differs' : f.en_phase ? 'in-step' : 'panel-differs'}>
      <dl class="fields">
        <dt>{t({ en: 'Game file', fr: 'Fichier du jeu' })}</dt><dd><code>{f.chemin}</code></dd>
        <dt>{t({ en: 'File and database', fr: 'Fichier et base' })}</dt>
        <dd>
          {f.erreur ? <span class="badge bad">{t({ en: 'invalid file', fr: 'fichier invalide' })}</span>
            : f.en_phase ? <span class="badge ok">{t({ en: 'in step', fr: 'en phase' })}</span>
              : <span class="badge bad">{t({ en: 'they differ on: {p}', fr: 'ils diffèrent sur : {p}' }, { p: f.parties_differentes.join(', ') })}</span>}
          {' '}{changed ? <span class="badge live">{t({ en: 'unsaved edits', fr: 'modifications non enregistrées' })}</span> : null}
        </dd>
      </dl>
      {f.erreur ? <div class="error"><pre>{f.erreur.message}</pre><p class="small">{t({ en: 'Fix the file, then reload this page. Saving writes a valid panel; it cannot save while other parts are invalid.', fr: 'Corrige le fichier, puis recharge cette page. L’enregistrement écrit un panneau valide ; il ne le peut pas tant que d’autres parties sont invalides.' })}</p></div> : null}
      {!f.erreur && others.length > 0 ? (
        <div class="error" role="alert">
          <p><strong>{t({
            en: 'The file and the database also differ on {p}: saving the panel would apply those parts too, so it is refused.',
            fr: 'Le fichier et la base diffèrent aussi sur {p} : enregistrer le panneau appliquerait aussi ces parties, c’est donc refusé.',
          }, { p: others.join(', ') })}</strong></p>
          <p class="small">{t({
            en: 'Apply the file as it is (what npx manette apply would do, audited), or fix the file and reload.',
            fr: 'Applique le fichier tel quel (ce que ferait npx manette apply, audité), ou corrige le fichier et recharge.',
          })}</p>
          <ConfirmButton danger={false} label={t({ en: 'Apply the file as it is', fr: 'Appliquer le fichier tel quel' })}
            confirm={t({ en: 'Really apply {p}?', fr: 'Vraiment appliquer {p} ?' }, { p: f.chemin })}
            action={async () => { await api.post(gamePath(state.jeu, 'panel', 'apply-file'), { version: f.version }); onApplied(); }} />
        </div>
      ) : null}
      {!f.erreur && others.length === 0 && !f.en_phase ? (
        <p class="notice small">{t({
          en: 'The file’s panel is not applied yet: the editor starts from the file; Save writes the editor’s panel and applies the file.',
          fr: 'Le panneau du fichier n’est pas encore appliqué : l’éditeur part du fichier ; Enregistrer écrit le panneau de l’éditeur et applique le fichier.',
        })}</p>
      ) : null}
    </div>
  );
}

function CopyJson({ draft }: { draft: Panel }) {
  useLang();
  const [copied, setCopied] = useState<boolean | undefined>();
  const pre = useRef<HTMLPreElement>(null);
  const text = panelJson(draft);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      // No clipboard (an http page on another host): the text is selected, Ctrl+C copies it.
      const range = document.createRange();
      range.selectNodeContents(pre.current!);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setCopied(false);
    }
  };
  return (
    <div class="pn-json">
      <div class="actions">
        <button type="button" class="primary" onClick={copy}>{t({ en: 'Copy the JSON', fr: 'Copier le JSON' })}</button>
        {copied === true ? <span class="success" role="status">{t({ en: 'Copied.', fr: 'Copié.' })}</span> : null}
        {copied === false ? <span class="muted small" role="status">{t({ en: 'Selected: press Ctrl+C (⌘C).', fr: 'Sélectionné : appuie sur Ctrl+C (⌘C).' })}</span> : null}
      </div>
      <pre class="pn-code" ref={pre} data-json="panel">{text}</pre>
    </div>
  );
}

// == The page ==================================================================

function PanelsEditor({ jeu, state, reload }: { jeu: string; state: PanelState; reload: () => void }) {
  useLang();
  const f = state.fichier;
  const canSave = !!f && f.meme_jeu && !f.erreur && f.parties_differentes.every((p) => p === 'panel');
  const start = (): Panel => (f && f.meme_jeu && !f.erreur ? panelOf(f.panel) : panelOf(state.panel));
  const [draft, setDraft] = useState<Panel>(start);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<Saved | undefined>();
  const [error, setError] = useState<unknown>();
  const [width, setWidth] = useState<'desktop' | 'phone'>('desktop');
  const [loginView, setLoginView] = useState<LoginView>('login');
  const [matchView, setMatchView] = useState<MatchView>('idle');
  const modes = Object.keys(state.config.modes ?? {});
  const [mode, setMode] = useState(modes[0] ?? '1v1');
  // A new state from the server (after a save, an apply, a reload): the editor follows it.
  useEffect(() => { setDraft(start()); }, [state]);

  const errors: Dict = useMemo(() => {
    const e = error instanceof ConsoleApiError ? error : undefined;
    return Object.fromEntries((e?.details ?? []).map((d) => [d.champ, d.message]));
  }, [error]);
  const edit = (p: Panel) => { setDraft(p); setSaved(undefined); };
  const fromFile = f && f.meme_jeu && !f.erreur ? panelOf(f.panel) : panelOf(state.panel);
  const dirty = !samePanel(draft, fromFile) || (!!f && f.meme_jeu && f.parties_differentes.includes('panel'));

  const save = async () => {
    setSaving(true);
    setError(undefined);
    setSaved(undefined);
    try {
      const r = await api.put<Saved>(gamePath(jeu, 'panel'), { panel: draft, version: f?.version });
      setSaved(r);
      reload();
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  const views = (
    <div class="pn-controls">
      <div class="pn-seg" role="group" aria-label={t({ en: 'Width', fr: 'Largeur' })}>
        <button type="button" aria-pressed={width === 'desktop'} onClick={() => setWidth('desktop')}>{t({ en: 'Desktop', fr: 'Ordinateur' })}</button>
        <button type="button" aria-pressed={width === 'phone'} onClick={() => setWidth('phone')}>{t({ en: 'Phone · 360 px', fr: 'Téléphone · 360 px' })}</button>
      </div>
      <label class="field">{t({ en: 'Login panel', fr: 'Panneau de connexion' })}
        <select value={loginView} onChange={(e) => setLoginView((e.target as HTMLSelectElement).value as LoginView)}>
          <option value="login">{t({ en: 'Sign in', fr: 'Connexion' })}</option>
          <option value="register">{t({ en: 'Sign up', fr: 'Inscription' })}</option>
          <option value="player">{t({ en: 'Signed in', fr: 'Connecté' })}</option>
        </select>
      </label>
      <label class="field">{t({ en: 'Matchmaking panel', fr: 'Panneau de matchmaking' })}
        <select value={matchView} onChange={(e) => setMatchView((e.target as HTMLSelectElement).value as MatchView)}>
          <option value="idle">{t({ en: 'Play button', fr: 'Bouton Jouer' })}</option>
          <option value="waiting">{t({ en: 'Waiting', fr: 'En attente' })}</option>
          <option value="matched">{t({ en: 'Match found', fr: 'Partie trouvée' })}</option>
          <option value="signed-out">{t({ en: 'Signed out', fr: 'Déconnecté' })}</option>
        </select>
      </label>
      <label class="field">{t({ en: 'Mode', fr: 'Mode' })}
        <select value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)} disabled={modes.length === 0}>
          {(modes.length ? modes : [mode]).map((m) => <option value={m}>{m}</option>)}
        </select>
      </label>
    </div>
  );

  return (
    <div class="pn-layout">
      <Card title={t({ en: 'Game file and database', fr: 'Fichier du jeu et base' })}>
        <FileStatus state={state} draft={draft} onApplied={reload} />
      </Card>

      <Card title={t({ en: 'Theme', fr: 'Thème' })}>
        <ThemeEditor state={state} draft={draft} set={edit} errors={errors} />
      </Card>

      <Card title={t({ en: 'Preview', fr: 'Aperçu' })} actions={<span class="muted small">{t({ en: 'the SDK’s real elements, nothing is sent', fr: 'les vrais éléments du SDK, rien n’est envoyé' })}</span>}>
        {views}
        <div class={`pn-previews pn-${width}`} data-width={width}>
          {(['fr', 'en'] as Lang[]).map((l) => (
            <figure class="pn-frame" key={l} data-lang={l}>
              <figcaption class="muted small">{l === 'fr' ? 'Français' : 'English'}{width === 'phone' ? ' · 360 px' : ''}</figcaption>
              <div class="pn-screen">
                <LivePanel kind="login" lang={l} state={state} draft={draft} view={loginView} mode={mode} />
                <LivePanel kind="matchmaking" lang={l} state={state} draft={draft} view={matchView} mode={mode} />
              </div>
            </figure>
          ))}
        </div>
      </Card>

      <Card title={t({ en: 'Texts', fr: 'Textes' })}>
        <TextsEditor state={state} draft={draft} set={edit} errors={errors} />
      </Card>

      <Card title={canSave ? t({ en: 'Save', fr: 'Enregistrer' }) : t({ en: 'The panel part to paste', fr: 'La partie panel à coller' })}>
        {canSave ? (
          <div class="pn-save">
            <p class="small">{t({
              en: 'Save writes this panel part into {p} (its other parts and their layout unchanged) and applies the file as npx manette apply does, in one step; the audit trail gets a “panel save” row.',
              fr: 'Enregistrer écrit cette partie panel dans {p} (ses autres parties et leur mise en forme inchangées) et applique le fichier comme npx manette apply, en une étape ; le journal d’audit reçoit une ligne « panel save ».',
            }, { p: f!.chemin })}</p>
            <div class="actions">
              <button type="button" class="primary" disabled={saving || !dirty} aria-busy={saving} onClick={save}>
                {saving ? t({ en: 'Saving…', fr: 'Enregistrement…' }) : t({ en: 'Save to the file and apply', fr: 'Enregistrer dans le fichier et appliquer' })}
              </button>
              <button type="button" disabled={saving || samePanel(draft, fromFile)} onClick={() => { setDraft(fromFile); setError(undefined); }}>
                {t({ en: 'Discard edits', fr: 'Annuler les modifications' })}
              </button>
              {!dirty && !saved ? <span class="muted small">{t({ en: 'Nothing to save.', fr: 'Rien à enregistrer.' })}</span> : null}
            </div>
          </div>
        ) : null}
        {saved ? (
          <div class="notice" role="status" data-saved="">
            <p class="success">{t({ en: 'Written to {p} and applied.', fr: 'Écrit dans {p} et appliqué.' }, { p: saved.fichier })}</p>
            <details><summary class="small">{t({ en: 'The file as written', fr: 'Le fichier tel qu’écrit' })}</summary><pre class="pn-code">{saved.contenu}</pre></details>
          </div>
        ) : null}
        {error ? (
          <>
            <ErrorBox error={error} />
            {error instanceof ConsoleApiError && (error.code === 'game_file_changed' || error.code === 'game_file_differs')
              ? <button type="button" onClick={() => { setError(undefined); reload(); }}>{t({ en: 'Reload the file', fr: 'Relire le fichier' })}</button> : null}
          </>
        ) : null}
        {canSave
          ? <details class="pn-paste"><summary class="small">{t({ en: 'The JSON of the panel part', fr: 'Le JSON de la partie panel' })}</summary><CopyJson draft={draft} /></details>
          : <>
            <p class="small">{t({ en: 'Paste this into the game file of “{j}” (replacing its panel part), then run npx manette apply.', fr: 'Colle ceci dans le fichier du jeu « {j} » (à la place de sa partie panel), puis lance npx manette apply.' }, { j: jeu })}</p>
            <CopyJson draft={draft} />
          </>}
      </Card>
    </div>
  );
}

function PanelsView({ jeu }: PageProps) {
  useLang();
  const loaded = useLoad(() => api.get<PanelState>(gamePath(jeu, 'panel')), [jeu]);
  return <Show loaded={loaded}>{(state) => <PanelsEditor jeu={jeu} state={state} reload={loaded.reload} />}</Show>;
}

export const panelsPage: ConsolePage = {
  id: 'panels',
  label: { en: 'Panels', fr: 'Panneaux' },
  component: PanelsView,
};
