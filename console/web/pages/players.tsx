// The players page: a search by pseudo or e-mail (prefix, any case) over the game's
// players, newest first; a player's page (#/<jeu>/players/<id>) with the profile, the
// sessions (revoke one, or all as `manette players revoke-sessions`), the suspension (ban
// with a reason and an optional end, unban: as `manette players ban|unban`), rows, files,
// scores and matches, and the economy (wallet, inventory, ledger paged by id; read only:
// grants and revokes are `manette economy grant|revoke`), and what else opens the account
// (the identities of the game file's connexions, the Supabase Auth user, Google; read only).
// Server: console/server/routes/players.ts.
import { useEffect, useState } from 'preact/hooks';
import type { ConsolePage, PageProps } from '../types.js';
import { api, gamePath, qs } from '../api.js';
import { num, t, useLang, when } from '../i18n.js';
import { href, navigate } from '../router.js';
import { Card, ConfirmButton, DataTable, Json, Pager, Show, useLoad } from '../ui.js';
import { NotificationsCard } from './player-notifications.js';

const PAGE = 25;

/** A suspension in force (null: the player may log in). */
interface Suspension { depuis: string; jusqu_a: string | null; raison: string }
interface PlayerRow {
  id: string; pseudo: string; email: string | null; pays: string | null; cree_le: string;
  sessions_actives: number; derniere_utilisation: string | null; suspension: Suspension | null;
}
interface PlayerList { joueurs: PlayerRow[]; plus: boolean }

interface Session { id: string; cree_le: string; expire_le: string; derniere_utilisation: string; revoquee_le: string | null; active: boolean }
interface RowItem { table: string; id: string; donnees: Record<string, unknown>; cree_le: string; maj_le: string }
interface FileItem { nom: string; taille: number; type: string; cree_le: string; maj_le: string }
interface ScoreItem { classement: string; nom: string | null; valeur: number; periode: string | null; periodicite: string; atteint_le: string; rang: number | null }
interface MatchItem { id: string; mode: string; statut: string; equipe: number; cree_le: string; termine_le: string | null; resultat: string | null }
interface Player extends PlayerRow {
  partie_en_cours: { id: string; mode_jeu: string; code_salon: string; cree_le: string } | null;
  sessions: Session[]; sessions_total: number;
  lignes: RowItem[]; lignes_total: number;
  fichiers: FileItem[]; fichiers_total: number;
  scores: ScoreItem[]; scores_total: number;
  parties: MatchItem[]; parties_total: number;
}

interface WalletLine { code: string; nom: string; solde: number; max: number | null }
interface InventoryLine { code: string; nom: string; quantite: number; empilable: boolean; max: number | null }
interface LedgerRow { id: number; type: 'monnaie' | 'objet'; code: string; delta: number; apres: number; raison: string; ref: Record<string, unknown>; cree_le: string }
interface Economy { portefeuille: WalletLine[]; inventaire: InventoryLine[]; mouvements: LedgerRow[]; suivant: number | null }

const LEDGER_PAGE = 20;

/** An identity of the game file's connexions (POST /players/login/jeton, /players/lier). */
interface Identity { fournisseur: string; emetteur: string; sub: string; cree_le: string }
interface Identities { supabase_user_id: string | null; google_sub: string | null; identites: Identity[] }

/** What opens the account besides its password: identity tokens' identities, Supabase Auth, Google. */
function IdentitiesCard({ jeu, id }: { jeu: string; id: string }) {
  useLang();
  const ids = useLoad(() => api.get<Identities>(gamePath(jeu, 'players', id, 'identites')), [jeu, id]);
  const none = <span class="muted">—</span>;
  return (
    <Card title={t({ en: 'Linked identities', fr: 'Identités liées' })}>
      <Show loaded={ids}>{(d) => (
        <>
          <dl class="fields">
            <dt>{t({ en: 'Supabase Auth user', fr: 'Utilisateur Supabase Auth' })}</dt>
            <dd>{d.supabase_user_id ? <code class="wrap">{d.supabase_user_id}</code> : none}</dd>
            <dt>Google</dt>
            <dd>{d.google_sub ? <code class="wrap">{d.google_sub}</code> : none}</dd>
          </dl>
          <DataTable<Identity>
            rows={d.identites} rowKey={(i) => `${i.emetteur}|${i.sub}`}
            empty={t({ en: 'No identity token has opened this account.', fr: 'Aucun jeton d’identité n’a ouvert ce compte.' })}
            columns={[
              { label: t({ en: 'Provider', fr: 'Fournisseur' }), cell: (i) => <code>{i.fournisseur}</code> },
              { label: t({ en: 'Issuer', fr: 'Émetteur' }), cell: (i) => <span class="mono small">{i.emetteur}</span>, class: 'wrap' },
              { label: t({ en: 'Subject', fr: 'Sujet' }), cell: (i) => <span class="mono small">{i.sub}</span>, class: 'wrap' },
              { label: t({ en: 'Since', fr: 'Depuis le' }), cell: (i) => <span class="nowrap">{when(i.cree_le)}</span> },
            ]} />
          <p class="muted small">{t({
            en: 'Read only. An identity is its issuer and subject: each later token of it opens this player (docs/accounts.md).',
            fr: 'Lecture seule. Une identité est son émetteur et son sujet : chaque jeton suivant de celle-ci ouvre ce joueur (docs/accounts.md).',
          })}</p>
        </>
      )}</Show>
    </Card>
  );
}

function PlayersPage(props: PageProps) {
  return props.rest[0] ? <PlayerView {...props} id={props.rest[0]} /> : <PlayerSearch {...props} />;
}

function PlayerSearch({ jeu, query }: PageProps) {
  useLang();
  const q = query.get('q') ?? '';
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]); // back / forward: the box says what the list shows
  const list = useLoad(() => api.get<PlayerList>(gamePath(jeu, 'players') + qs({ q, limit: PAGE, offset })), [jeu, q, offset]);
  const go = (nq: string, off: number) => navigate(href(jeu, 'players') + qs({ q: nq, offset: off || undefined }));
  return (
    <>
      <Card title={t({ en: 'Find a player', fr: 'Chercher un joueur' })}>
        <form class="inline" role="search" onSubmit={(e) => { e.preventDefault(); go(text.trim(), 0); }}>
          <label class="field grow">
            {t({ en: 'Pseudo or e-mail (beginning, any case), or id', fr: 'Pseudo ou e-mail (début, sans casse), ou id' })}
            <input type="search" name="q" value={text} maxLength={254} autocomplete="off"
              placeholder={t({ en: 'e.g. ali or alice@', fr: 'ex. ali ou alice@' })}
              onInput={(e) => setText((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" class="primary">{t({ en: 'Search', fr: 'Chercher' })}</button>
          {q ? <button type="button" onClick={() => { setText(''); go('', 0); }}>{t({ en: 'Show all', fr: 'Tout afficher' })}</button> : null}
        </form>
      </Card>
      <Card title={q ? t({ en: 'Players matching “{q}”', fr: 'Joueurs pour « {q} »' }, { q }) : t({ en: 'All players, newest first', fr: 'Tous les joueurs, les plus récents d’abord' })}>
        <Show loaded={list}>{(data) => (
          <>
            <DataTable<PlayerRow>
              rows={data.joueurs} rowKey={(p) => p.id}
              empty={q ? t({ en: 'No player’s pseudo or e-mail begins with “{q}”.', fr: 'Aucun pseudo ni e-mail ne commence par « {q} ».' }, { q })
                : t({ en: 'No player yet.', fr: 'Aucun joueur pour l’instant.' })}
              columns={[
                { label: t({ en: 'Pseudo', fr: 'Pseudo' }), cell: (p) => <>
                  <a href={href(jeu, 'players', p.id)}>{p.pseudo}</a>
                  {p.suspension ? <> <span class="badge bad" title={p.suspension.raison}>{t({ en: 'suspended', fr: 'suspendu' })}</span></> : null}
                </> },
                { label: t({ en: 'E-mail', fr: 'E-mail' }), cell: (p) => p.email ?? <span class="muted">—</span>, class: 'wrap' },
                { label: t({ en: 'Country', fr: 'Pays' }), cell: (p) => p.pays ?? <span class="muted">—</span> },
                { label: t({ en: 'Created', fr: 'Créé le' }), cell: (p) => when(p.cree_le) },
                { label: t({ en: 'Active sessions', fr: 'Sessions actives' }), cell: (p) => num(p.sessions_actives), class: 'num' },
                { label: t({ en: 'Last seen', fr: 'Dernière visite' }), cell: (p) => when(p.derniere_utilisation) },
              ]} />
            <Pager offset={offset} limit={PAGE} more={data.plus} onPage={(o) => go(q, o)} />
          </>
        )}</Show>
      </Card>
    </>
  );
}

function statusBadge(statut: string) {
  const label = statut === 'en_cours' ? t({ en: 'in progress', fr: 'en cours' })
    : statut === 'terminee' ? t({ en: 'over', fr: 'terminée' })
      : statut === 'annulee' ? t({ en: 'cancelled', fr: 'annulée' }) : statut;
  return <span class={`badge ${statut === 'en_cours' ? 'live' : statut === 'annulee' ? 'off' : 'ok'}`}>{label}</span>;
}

function result(r: string | null) {
  if (r === 'victoire') return t({ en: 'won', fr: 'gagnée' });
  if (r === 'defaite') return t({ en: 'lost', fr: 'perdue' });
  if (r === 'nul') return t({ en: 'draw', fr: 'nul' });
  return <span class="muted">—</span>;
}

function size(bytes: number): string {
  if (bytes < 1024) return t({ en: '{n} B', fr: '{n} o' }, { n: bytes });
  if (bytes < 1024 * 1024) return t({ en: '{n} KiB', fr: '{n} Kio' }, { n: num(bytes / 1024, 1) });
  return t({ en: '{n} MiB', fr: '{n} Mio' }, { n: num(bytes / 1024 / 1024, 1) });
}

function reason(r: string) {
  switch (r) {
    case 'depart': return t({ en: 'starting balance', fr: 'solde de départ' });
    case 'achat': return t({ en: 'purchase', fr: 'achat' });
    case 'utilisation': return t({ en: 'use', fr: 'utilisation' });
    case 'recompense': return t({ en: 'match reward', fr: 'récompense de partie' });
    case 'support': return t({ en: 'support', fr: 'support' });
    case 'regles': return t({ en: 'match rules', fr: 'règles de partie' });
    default: return r;
  }
}

/** What a ledger row's ref points at: the article bought, the match rewarded, or the raw ref. */
function refOf(jeu: string, row: LedgerRow) {
  const ref = row.ref ?? {};
  if (typeof ref.article === 'string') return <span class="nowrap"><code>{ref.article}</code> × {num(Number(ref.quantite ?? 1))}</span>;
  if (typeof ref.partie_id === 'string') return <a class="mono" href={href(jeu, 'matches', ref.partie_id)}>{ref.partie_id.slice(0, 8)}</a>;
  return Object.keys(ref).length ? <Json value={ref} max={60} /> : <span class="muted">—</span>;
}

function signed(n: number) {
  return n > 0 ? `+${num(n)}` : num(n);
}

/** The player's wallet, inventory and ledger (newest first, "Older" pages by id). */
function EconomyCard({ jeu, id }: { jeu: string; id: string }) {
  useLang();
  const [cursors, setCursors] = useState<number[]>([]);
  const avant = cursors[cursors.length - 1];
  const eco = useLoad(() => api.get<Economy>(gamePath(jeu, 'players', id, 'economie') + qs({ limit: LEDGER_PAGE, avant })), [jeu, id, avant]);
  return (
    <Card title={t({ en: 'Wallet and ledger', fr: 'Portefeuille et grand livre' })}>
      <Show loaded={eco}>{(e) => (
        <>
          <div class="grid wide">
            <div>
              <h3>{t({ en: 'Wallet', fr: 'Portefeuille' })}</h3>
              <DataTable<WalletLine>
                rows={e.portefeuille} rowKey={(w) => w.code}
                empty={t({ en: 'The game file declares no currency.', fr: 'Le fichier de jeu ne déclare aucune monnaie.' })}
                columns={[
                  { label: t({ en: 'Currency', fr: 'Monnaie' }), cell: (w) => <span title={w.code}>{w.nom} <code class="muted small">{w.code}</code></span> },
                  { label: t({ en: 'Balance', fr: 'Solde' }), cell: (w) => num(w.solde), class: 'num' },
                  { label: t({ en: 'Cap', fr: 'Plafond' }), cell: (w) => (w.max === null ? <span class="muted">—</span> : num(w.max)), class: 'num' },
                ]} />
            </div>
            <div>
              <h3>{t({ en: 'Inventory', fr: 'Inventaire' })}</h3>
              <DataTable<InventoryLine>
                rows={e.inventaire} rowKey={(o) => o.code}
                empty={t({ en: 'No object held.', fr: 'Aucun objet détenu.' })}
                columns={[
                  { label: t({ en: 'Object', fr: 'Objet' }), cell: (o) => <span title={o.code}>{o.nom} <code class="muted small">{o.code}</code></span> },
                  { label: t({ en: 'Quantity', fr: 'Quantité' }), cell: (o) => num(o.quantite), class: 'num' },
                  { label: t({ en: 'Cap', fr: 'Plafond' }), cell: (o) => (!o.empilable ? t({ en: 'one at most', fr: 'un au plus' })
                    : o.max === null ? <span class="muted">—</span> : num(o.max)), class: 'num' },
                ]} />
            </div>
          </div>
          <h3>{t({ en: 'Ledger, newest first', fr: 'Grand livre, les plus récents d’abord' })}</h3>
          <DataTable<LedgerRow>
            rows={e.mouvements} rowKey={(r) => String(r.id)}
            empty={t({ en: 'No movement yet: every balance is its currency’s starting amount.', fr: 'Aucun mouvement pour l’instant : chaque solde est le montant de départ de sa monnaie.' })}
            columns={[
              { label: '#', cell: (r) => <span class="muted small">{r.id}</span>, class: 'num' },
              { label: t({ en: 'When', fr: 'Quand' }), cell: (r) => <span class="nowrap">{when(r.cree_le)}</span> },
              { label: t({ en: 'What', fr: 'Quoi' }), cell: (r) => <span class="nowrap">
                <span class={`badge ${r.type === 'monnaie' ? 'ok' : 'live'}`}>{r.type === 'monnaie' ? t({ en: 'currency', fr: 'monnaie' }) : t({ en: 'object', fr: 'objet' })}</span> <code>{r.code}</code></span> },
              { label: t({ en: 'Change', fr: 'Variation' }), cell: (r) => signed(r.delta), class: 'num' },
              { label: t({ en: 'After', fr: 'Après' }), cell: (r) => num(r.apres), class: 'num' },
              { label: t({ en: 'Reason', fr: 'Raison' }), cell: (r) => reason(r.raison) },
              { label: t({ en: 'Reference', fr: 'Référence' }), cell: (r) => refOf(jeu, r), class: 'wrap' },
            ]} />
          {cursors.length || e.suivant !== null ? (
            <nav class="pager" aria-label={t({ en: 'Ledger pages', fr: 'Pages du grand livre' })}>
              <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>{t({ en: '← Newer', fr: '← Plus récents' })}</button>
              <button type="button" disabled={e.suivant === null} onClick={() => setCursors([...cursors, e.suivant!])}>{t({ en: 'Older →', fr: 'Plus anciens →' })}</button>
            </nav>
          ) : null}
          <p class="muted small">{t({
            en: 'Read only. Support grants and revokes: manette economy grant|revoke (audited).',
            fr: 'Lecture seule. Crédits et débits du support : manette economy grant|revoke (audités).',
          })}</p>
        </>
      )}</Show>
    </Card>
  );
}

/** "12 of 80 shown" under a capped list. */
function Capped({ shown, total }: { shown: number; total: number }) {
  if (total <= shown) return null;
  return <p class="muted small">{t({ en: 'The {n} newest of {total}.', fr: 'Les {n} plus récents sur {total}.' }, { n: shown, total: num(total) })}</p>;
}

interface Banned { sessions_revoquees: number; parties_abandonnees: number; jusqu_a: string | null }

/**
 * The suspension: in force (since, until, reason, Unban), or a ban form (reason, optional
 * end in the browser's local time). Both as the CLI's `manette players ban|unban`, audited.
 */
function SuspensionCard({ jeu, p, onChange }: { jeu: string; p: Player; onChange: () => void }) {
  useLang();
  const [raison, setRaison] = useState('');
  const [fin, setFin] = useState('');
  const [done, setDone] = useState<string>();
  const s = p.suspension;
  const ban = async () => {
    const r = await api.post<Banned>(gamePath(jeu, 'players', p.id, 'ban'),
      { raison, jusqu_a: fin ? new Date(fin).toISOString() : null });
    setDone(t({
      en: 'Banned: {n} session(s) revoked, {m} match(es) abandoned. Every login is now refused (403 compte_suspendu).',
      fr: 'Suspendu : {n} session(s) révoquée(s), {m} partie(s) abandonnée(s). Toute connexion est désormais refusée (403 compte_suspendu).',
    }, { n: r.sessions_revoquees, m: r.parties_abandonnees }));
    setRaison('');
    setFin('');
    onChange();
  };
  const unban = async () => {
    await api.post(gamePath(jeu, 'players', p.id, 'unban'), {});
    setDone(t({ en: 'Suspension lifted: the player can log in again.', fr: 'Suspension levée : le joueur peut se connecter de nouveau.' }));
    onChange();
  };
  return (
    <Card title={<>{t({ en: 'Suspension', fr: 'Suspension' })} {s
      ? <span class="badge bad">{t({ en: 'suspended', fr: 'suspendu' })}</span>
      : <span class="badge ok">{t({ en: 'not suspended', fr: 'non suspendu' })}</span>}</>}
      actions={s ? <ConfirmButton label={t({ en: 'Unban', fr: 'Lever la suspension' })} danger={false}
        confirm={t({ en: 'Really unban?', fr: 'Vraiment lever ?' })} action={unban} /> : undefined}>
      {done ? <p class="success" role="status">{done}</p> : null}
      {s ? (
        <dl class="fields">
          <dt>{t({ en: 'Since', fr: 'Depuis le' })}</dt><dd>{when(s.depuis)}</dd>
          <dt>{t({ en: 'Until', fr: 'Jusqu’au' })}</dt>
          <dd>{s.jusqu_a ? when(s.jusqu_a) : t({ en: 'lifted by hand (no end date)', fr: 'levée à la main (sans date de fin)' })}</dd>
          <dt>{t({ en: 'Reason', fr: 'Raison' })}</dt><dd>{s.raison}</dd>
        </dl>
      ) : (
        <form class="inline" onSubmit={(e) => e.preventDefault()}>
          <label class="field grow">
            {t({ en: 'Reason (kept in the audit trail)', fr: 'Raison (gardée dans le journal d’audit)' })}
            <input name="raison" value={raison} maxLength={1000} autocomplete="off"
              placeholder={t({ en: 'e.g. cheating, ticket #42', fr: 'ex. triche, ticket n° 42' })}
              onInput={(e) => setRaison((e.target as HTMLInputElement).value)} />
          </label>
          <label class="field">
            {t({ en: 'Until (optional, local time)', fr: 'Jusqu’au (facultatif, heure locale)' })}
            <input type="datetime-local" name="jusqu_a" value={fin} onInput={(e) => setFin((e.target as HTMLInputElement).value)} />
          </label>
          <ConfirmButton label={t({ en: 'Ban', fr: 'Suspendre' })} confirm={t({ en: 'Really ban?', fr: 'Vraiment suspendre ?' })}
            disabled={raison.trim() === ''} action={ban} />
        </form>
      )}
      <p class="muted small">{s ? t({
        en: 'Every login (password, Google, guest device, linking) is refused with 403 compte_suspendu until then.',
        fr: 'Toute connexion (mot de passe, Google, appareil d’invité, liaison) est refusée par 403 compte_suspendu jusque-là.',
      }) : t({
        en: 'A ban revokes every session, takes the player out of the queue, abandons the player’s match in progress (the opponents win) and refuses every login until the end date, or until unbanned. Same as manette players ban (audited).',
        fr: 'Suspendre révoque toutes les sessions, retire le joueur de la file d’attente, abandonne sa partie en cours (l’adversaire gagne) et refuse toute connexion jusqu’à la date de fin, ou jusqu’à la levée. Comme manette players ban (audité).',
      })}</p>
    </Card>
  );
}

function PlayerView({ jeu, id }: PageProps & { id: string }) {
  useLang();
  const player = useLoad(() => api.get<Player>(gamePath(jeu, 'players', id)), [jeu, id]);
  const [done, setDone] = useState<string>();
  const revoke = async (sessionId?: string) => {
    const r = await api.post<{ sessions_revoquees?: number; deja_revoquee?: boolean }>(
      gamePath(jeu, 'players', id, 'sessions', 'revoke'), sessionId ? { session_id: sessionId } : {});
    setDone(sessionId
      ? (r.deja_revoquee ? t({ en: 'This session was already revoked: nothing changed.', fr: 'Cette session était déjà révoquée : rien n’a changé.' })
        : t({ en: 'Session revoked: its token is refused from now on (401 invalid_token).', fr: 'Session révoquée : son jeton est refusé dès maintenant (401 invalid_token).' }))
      : t({ en: '{n} session(s) revoked.', fr: '{n} session(s) révoquée(s).' }, { n: r.sessions_revoquees ?? 0 }));
    player.reload();
  };
  return (
    <>
      <p><a href={href(jeu, 'players')}>{t({ en: '← All players', fr: '← Tous les joueurs' })}</a></p>
      <Show loaded={player}>{(p) => (
        <>
          <Card title={<>{p.pseudo} <span class="muted small mono">{p.id}</span></>}>
            <dl class="fields">
              <dt>{t({ en: 'E-mail', fr: 'E-mail' })}</dt><dd>{p.email ?? '—'}</dd>
              <dt>{t({ en: 'Country', fr: 'Pays' })}</dt><dd>{p.pays ?? '—'}</dd>
              <dt>{t({ en: 'Created', fr: 'Créé le' })}</dt><dd>{when(p.cree_le)}</dd>
              <dt>{t({ en: 'Active sessions', fr: 'Sessions actives' })}</dt><dd>{num(p.sessions_actives)}</dd>
              <dt>{t({ en: 'Last seen', fr: 'Dernière visite' })}</dt><dd>{when(p.derniere_utilisation)}</dd>
              <dt>{t({ en: 'Match in progress', fr: 'Partie en cours' })}</dt>
              <dd>{p.partie_en_cours
                ? <a href={href(jeu, 'matches', p.partie_en_cours.id)}>{p.partie_en_cours.mode_jeu} · {p.partie_en_cours.code_salon}</a>
                : '—'}</dd>
              <dt>{t({ en: 'Matches', fr: 'Parties' })}</dt><dd>{num(p.parties_total)}</dd>
            </dl>
          </Card>

          <IdentitiesCard jeu={jeu} id={id} />

          <SuspensionCard jeu={jeu} p={p} onChange={() => player.reload()} />

          <Card title={t({ en: 'Sessions', fr: 'Sessions' })}
            actions={<ConfirmButton label={t({ en: 'Revoke all sessions', fr: 'Révoquer toutes les sessions' })}
              confirm={t({ en: 'Really revoke them all?', fr: 'Vraiment toutes les révoquer ?' })}
              disabled={p.sessions_actives === 0} action={() => revoke()} />}>
            {done ? <p class="success" role="status">{done}</p> : null}
            <DataTable<Session>
              rows={p.sessions} rowKey={(s) => s.id}
              empty={t({ en: 'No session: this player never logged in.', fr: 'Aucune session : ce joueur ne s’est jamais connecté.' })}
              columns={[
                { label: t({ en: 'Opened', fr: 'Ouverte le' }), cell: (s) => when(s.cree_le) },
                { label: t({ en: 'Last used', fr: 'Dernier usage' }), cell: (s) => when(s.derniere_utilisation) },
                { label: t({ en: 'Expires', fr: 'Expire le' }), cell: (s) => when(s.expire_le) },
                { label: t({ en: 'State', fr: 'État' }), cell: (s) => s.active
                  ? <span class="badge ok">{t({ en: 'active', fr: 'active' })}</span>
                  : s.revoquee_le
                    ? <><span class="badge bad">{t({ en: 'revoked', fr: 'révoquée' })}</span> <span class="muted small nowrap">{when(s.revoquee_le)}</span></>
                    : <span class="badge off">{t({ en: 'expired', fr: 'expirée' })}</span> },
                { label: '', cell: (s) => s.active
                  ? <ConfirmButton label={t({ en: 'Revoke', fr: 'Révoquer' })} confirm={t({ en: 'Really revoke?', fr: 'Vraiment révoquer ?' })}
                    action={() => revoke(s.id)} />
                  : null },
              ]} />
            <Capped shown={p.sessions.length} total={p.sessions_total} />
          </Card>

          <EconomyCard jeu={jeu} id={id} />

          <NotificationsCard jeu={jeu} id={id} />

          <div class="grid wide">
            <Card title={t({ en: 'Rows', fr: 'Lignes' })}>
              <DataTable<RowItem>
                rows={p.lignes} rowKey={(r) => `${r.table}/${r.id}`}
                empty={t({ en: 'No row in the data tables.', fr: 'Aucune ligne dans les tables.' })}
                columns={[
                  { label: t({ en: 'Table', fr: 'Table' }), cell: (r) => <code>{r.table}</code> },
                  { label: t({ en: 'Data', fr: 'Données' }), cell: (r) => <Json value={r.donnees} max={60} />, class: 'wrap' },
                  { label: t({ en: 'Updated', fr: 'Modifiée le' }), cell: (r) => when(r.maj_le) },
                ]} />
              <Capped shown={p.lignes.length} total={p.lignes_total} />
            </Card>
            <Card title={t({ en: 'Files', fr: 'Fichiers' })}>
              <DataTable<FileItem>
                rows={p.fichiers} rowKey={(f) => f.nom}
                empty={t({ en: 'No file.', fr: 'Aucun fichier.' })}
                columns={[
                  { label: t({ en: 'Name', fr: 'Nom' }), cell: (f) => <code>{f.nom}</code>, class: 'wrap' },
                  { label: t({ en: 'Type', fr: 'Type' }), cell: (f) => f.type },
                  { label: t({ en: 'Size', fr: 'Taille' }), cell: (f) => size(f.taille), class: 'num' },
                  { label: t({ en: 'Updated', fr: 'Modifié le' }), cell: (f) => when(f.maj_le) },
                ]} />
              <Capped shown={p.fichiers.length} total={p.fichiers_total} />
            </Card>
          </div>

          <div class="grid wide">
            <Card title={t({ en: 'Scores', fr: 'Scores' })}>
              <DataTable<ScoreItem>
                rows={p.scores} rowKey={(s) => `${s.classement}/${s.periode ?? ''}`}
                empty={t({ en: 'No score.', fr: 'Aucun score.' })}
                columns={[
                  { label: t({ en: 'Leaderboard', fr: 'Classement' }), cell: (s) => <span title={s.classement}>{s.nom ?? s.classement}</span> },
                  { label: t({ en: 'Value', fr: 'Valeur' }), cell: (s) => num(s.valeur, 3), class: 'num' },
                  { label: t({ en: 'Rank', fr: 'Rang' }), cell: (s) => (s.rang === null ? '—' : `#${num(s.rang)}`), class: 'num' },
                  { label: t({ en: 'Period', fr: 'Période' }), cell: (s) => (s.periode ? when(s.periode) : t({ en: 'all time', fr: 'permanent' })) },
                ]} />
              <Capped shown={p.scores.length} total={p.scores_total} />
            </Card>
            <Card title={t({ en: 'Matches', fr: 'Parties' })}>
              <DataTable<MatchItem>
                rows={p.parties} rowKey={(m) => m.id}
                empty={t({ en: 'No match.', fr: 'Aucune partie.' })}
                columns={[
                  { label: t({ en: 'Match', fr: 'Partie' }), cell: (m) => <a class="mono" href={href(jeu, 'matches', m.id)}>{m.id.slice(0, 8)}</a> },
                  { label: t({ en: 'Mode', fr: 'Mode' }), cell: (m) => m.mode },
                  { label: t({ en: 'Status', fr: 'Statut' }), cell: (m) => statusBadge(m.statut) },
                  { label: t({ en: 'Result', fr: 'Résultat' }), cell: (m) => result(m.resultat) },
                  { label: t({ en: 'Started', fr: 'Commencée le' }), cell: (m) => when(m.cree_le) },
                ]} />
              <Capped shown={p.parties.length} total={p.parties_total} />
            </Card>
          </div>
        </>
      )}</Show>
    </>
  );
}

export const playersPage: ConsolePage = {
  id: 'players',
  label: { en: 'Players', fr: 'Joueurs' },
  component: PlayersPage,
};
