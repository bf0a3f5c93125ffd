// The keys page: the game's API keys (as `manette keys list`), a new key (as `manette keys
// create`, shown with the rotation steps of docs/admin.md), a key revoked (as `manette keys
// revoke`: the last active key is refused by the SQL, and the page says so as the server
// does). Server: console/server/routes/keys.ts.
import { useState } from 'preact/hooks';
import type { ConsolePage, PageProps } from '../types.js';
import { api, gamePath } from '../api.js';
import { t, useLang, when } from '../i18n.js';
import { Card, ConfirmButton, DataTable, ErrorBox, Show, useLoad } from '../ui.js';

interface KeyRow { cle: string; cree_le: string; revoquee_le: string | null; active: boolean }
interface KeyList { jeu: string; cles: KeyRow[] }
interface KeyCreated { jeu: string; cle: string; cree_le: string; actives: number }
interface KeyRevoked { jeu: string; cle: string; revoquee_le: string; deja_revoquee: boolean; actives: number }

function KeysPage({ jeu }: PageProps) {
  useLang();
  const keys = useLoad(() => api.get<KeyList>(gamePath(jeu, 'keys')), [jeu]);
  const [created, setCreated] = useState<KeyCreated>();
  const [revoked, setRevoked] = useState<KeyRevoked>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setCreated(await api.post<KeyCreated>(gamePath(jeu, 'keys')));
      setRevoked(undefined);
      keys.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (cle: string) => {
    setRevoked(await api.post<KeyRevoked>(gamePath(jeu, 'keys', 'revoke'), { cle }));
    keys.reload();
  };

  return (
    <>
      {created ? (
        <section class="notice new-key" aria-live="polite">
          <h2>{t({ en: 'New key', fr: 'Nouvelle clé' })}</h2>
          <p><code class="key-big">{created.cle}</code></p>
          <p class="small">{t({ en: 'Active keys: {n}. Every active key works; to rotate:', fr: 'Clés actives : {n}. Toutes les clés actives marchent ; pour la rotation :' }, { n: created.actives })}</p>
          <ol class="small">
            <li>{t({ en: 'Put this key in the game and ship that version. Both keys work meanwhile.', fr: 'Mets cette clé dans le jeu et publie cette version. Les deux clés marchent en attendant.' })}</li>
            <li>{t({ en: 'Wait until the old versions are no longer in use (manette apply keeps printing the oldest active key).', fr: 'Attends que les anciennes versions ne servent plus (manette apply affiche toujours la plus ancienne clé active).' })}</li>
            <li>{t({ en: 'Revoke the old key below: the API refuses it at once (401 invalid_key).', fr: 'Révoque l’ancienne clé ci-dessous : l’API la refuse aussitôt (401 invalid_key).' })}</li>
          </ol>
        </section>
      ) : null}
      {revoked ? (
        <p class="success" role="status">{revoked.deja_revoquee
          ? t({ en: 'This key was already revoked: nothing changed.', fr: 'Cette clé était déjà révoquée : rien n’a changé.' })
          : t({ en: 'Key revoked: the API refuses it from now on (401 invalid_key). Active keys left: {n}.', fr: 'Clé révoquée : l’API la refuse dès maintenant (401 invalid_key). Clés actives restantes : {n}.' }, { n: revoked.actives })}</p>
      ) : null}
      <Card title={t({ en: 'API keys', fr: 'Clés d’API' })}
        actions={<button type="button" class="primary" disabled={busy} aria-busy={busy} onClick={create}>{t({ en: 'Create a key', fr: 'Créer une clé' })}</button>}>
        <ErrorBox error={error} />
        <p class="muted small">{t({
          en: 'Keys are public identifiers shipped in the game’s clients; they are shown in full. The last active key cannot be revoked: create another one first.',
          fr: 'Les clés sont des identifiants publics livrés dans les clients du jeu ; elles sont affichées en entier. La dernière clé active ne peut pas être révoquée : crées-en une autre d’abord.',
        })}</p>
        <Show loaded={keys}>{(data) => (
          <DataTable<KeyRow>
            rows={data.cles} rowKey={(k) => k.cle}
            columns={[
              { label: t({ en: 'Key', fr: 'Clé' }), cell: (k) => k.cle, class: 'mono' },
              { label: t({ en: 'Created', fr: 'Créée le' }), cell: (k) => when(k.cree_le) },
              { label: t({ en: 'Revoked', fr: 'Révoquée le' }), cell: (k) => when(k.revoquee_le) },
              { label: t({ en: 'State', fr: 'État' }), cell: (k) => (k.active
                ? <span class="badge ok">{t({ en: 'active', fr: 'active' })}</span>
                : <span class="badge off">{t({ en: 'revoked', fr: 'révoquée' })}</span>) },
              { label: '', cell: (k) => (k.active
                ? <ConfirmButton label={t({ en: 'Revoke', fr: 'Révoquer' })} confirm={t({ en: 'Really revoke?', fr: 'Vraiment révoquer ?' })}
                  action={() => revoke(k.cle)} />
                : null) },
            ]} />
        )}</Show>
      </Card>
    </>
  );
}

export const keysPage: ConsolePage = {
  id: 'keys',
  label: { en: 'Keys', fr: 'Clés' },
  component: KeysPage,
};
