// The tables page: the game's data tables, then a table's rows (filtered on its declared
// columns as GET /tables filters them, paged); a row of an ecriture: serveur table edited,
// added or deleted; rows imported from a CSV or JSON file as `manette import` does.
// Server: console/server/routes/tables.ts (manette_admin.console_tables, console_table_rows,
// table_row_update, table_row_insert, table_rows_delete, table_rows_import).
import { useEffect, useState } from 'preact/hooks';
import { api, ConsoleApiError, gamePath, qs } from '../api.js';
import { num, t, useLang, when } from '../i18n.js';
import { href } from '../router.js';
import type { ConsolePage, PageProps } from '../types.js';
import { Card, ConfirmButton, DataTable, ErrorBox, Json, Pager, Show, useLoad, type Column } from '../ui.js';

interface TableColumn { nom: string; type: 'text' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'json'; requis: boolean }
interface TableInfo { nom: string; colonnes: TableColumn[]; lecture: string; ecriture: 'serveur' | 'joueurs'; lignes: number }
interface Row { id: string; joueur_id: string | null; pseudo: string | null; donnees: Record<string, unknown>; cree_le: string; maj_le: string }
interface RowsPage { lignes: Row[]; plus: boolean }
interface ImportResult { importees: number; inserees: number; mises_a_jour: number; supprimees: number }

const LIMIT = 25;

const READ: Record<string, { en: string; fr: string }> = {
  public: { en: 'public', fr: 'public' },
  joueurs: { en: 'players', fr: 'joueurs' },
  proprietaire: { en: 'owner', fr: 'propriétaire' },
};
const WRITE: Record<string, { en: string; fr: string }> = {
  serveur: { en: 'server', fr: 'serveur' },
  joueurs: { en: 'players', fr: 'joueurs' },
};

function TablesList({ jeu }: { jeu: string }) {
  useLang();
  const tables = useLoad(() => api.get<TableInfo[]>(gamePath(jeu, 'tables')), [jeu]);
  const columns: Column<TableInfo>[] = [
    { label: t({ en: 'Table', fr: 'Table' }), cell: (r) => <a href={href(jeu, 'tables', r.nom)}><strong>{r.nom}</strong></a> },
    { label: t({ en: 'Columns', fr: 'Colonnes' }), cell: (r) => <span class="small">{r.colonnes.map((c) => `${c.nom}${c.requis ? '*' : ''} (${c.type})`).join(', ') || '—'}</span> },
    { label: t({ en: 'Read', fr: 'Lecture' }), cell: (r) => <span class="badge">{t(READ[r.lecture] ?? { en: r.lecture, fr: r.lecture })}</span> },
    { label: t({ en: 'Write', fr: 'Écriture' }), cell: (r) => <span class={`badge ${r.ecriture === 'serveur' ? 'live' : ''}`}>{t(WRITE[r.ecriture] ?? { en: r.ecriture, fr: r.ecriture })}</span> },
    { label: t({ en: 'Rows', fr: 'Lignes' }), cell: (r) => num(r.lignes), class: 'num' },
  ];
  return (
    <Card title={t({ en: 'Data tables', fr: 'Tables de données' })}>
      <p class="muted small">{t({
        en: 'Declared in the game file. Rows of server tables (write: server) can be edited, added and deleted here; any table can be imported into. * required column.',
        fr: 'Déclarées dans le fichier du jeu. Les lignes des tables serveur (écriture : serveur) se modifient, s’ajoutent et se suppriment ici ; toute table peut recevoir un import. * colonne requise.',
      })}</p>
      <Show loaded={tables}>{(list) => (
        <DataTable columns={columns} rows={list} rowKey={(r) => r.nom}
          empty={t({ en: 'This game declares no table.', fr: 'Ce jeu ne déclare aucune table.' })} />
      )}</Show>
    </Card>
  );
}

/** A value as the form shows it. */
function toText(c: TableColumn, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (c.type === 'json') return JSON.stringify(v, null, 1);
  return String(v);
}

/** What the form sends for a field: empty is null (clears it); numbers and booleans when they read as such, else the text (the server says what is wrong). */
function fromText(c: TableColumn, text: string): unknown {
  if (text.trim() === '') return null;
  switch (c.type) {
    case 'integer': case 'number':
      return /^\s*-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'json':
      try { return JSON.parse(text); } catch { return text; }
    default:
      return text;
  }
}

/** The form of one row (edit) or a new one (add): a field per column, typed; the server's refusal beside each field. */
function RowForm({ jeu, table, row, onDone, onCancel }: {
  jeu: string; table: TableInfo; row?: Row; onDone: () => void; onCancel: () => void;
}) {
  useLang();
  const [values, setValues] = useState<Record<string, string>>(
    () => Object.fromEntries(table.colonnes.map((c) => [c.nom, toText(c, row?.donnees[c.nom])])));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const problems = error instanceof ConsoleApiError ? error.details : [];
  const problemOf = (col: string) => problems.filter((d) => d.champ === `donnees.${col}`).map((d) => d.message).join(' ; ');
  const elsewhere = problems.filter((d) => !table.colonnes.some((c) => d.champ === `donnees.${c.nom}`));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const donnees = Object.fromEntries(table.colonnes.map((c) => [c.nom, fromText(c, values[c.nom] ?? '')]));
    try {
      if (row) await api.patch(gamePath(jeu, 'tables', table.nom, 'rows', row.id), { donnees });
      else await api.post(gamePath(jeu, 'tables', table.nom, 'rows'), { donnees: Object.fromEntries(Object.entries(donnees).filter(([, v]) => v !== null)) });
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const set = (col: string, v: string) => setValues((s) => ({ ...s, [col]: v }));
  return (
    <form class="row-form" onSubmit={submit} aria-label={row ? t({ en: 'Edit row', fr: 'Modifier la ligne' }) : t({ en: 'New row', fr: 'Nouvelle ligne' })}>
      {error ? (
        <div class="error" role="alert">
          <p><strong>{(error as Error).message}</strong>{error instanceof ConsoleApiError ? <code class="code-tag">{error.code}</code> : null}</p>
          {elsewhere.length > 0 && <ul>{elsewhere.map((d) => <li key={d.champ}><code>{d.champ}</code> : {d.message}</li>)}</ul>}
        </div>
      ) : null}
      <div class="form-grid">
        {table.colonnes.map((c) => {
          const problem = problemOf(c.nom);
          const id = `col-${c.nom}`;
          const common = { id, 'aria-invalid': problem ? 'true' : undefined, 'aria-describedby': problem ? `${id}-error` : undefined } as const;
          return (
            <label class={`field ${c.type === 'json' ? 'wide' : ''}`} for={id} key={c.nom}>
              <span>{c.nom}{c.requis ? ' *' : ''} <span class="muted small">{c.type}</span></span>
              {c.type === 'boolean'
                ? <select {...common} value={values[c.nom]} onChange={(e) => set(c.nom, (e.target as HTMLSelectElement).value)}>
                  <option value="">—</option><option value="true">true</option><option value="false">false</option>
                </select>
                : c.type === 'json'
                  ? <textarea {...common} rows={3} value={values[c.nom]} onInput={(e) => set(c.nom, (e.target as HTMLTextAreaElement).value)} />
                  : <input {...common} type="text" value={values[c.nom]}
                    placeholder={c.type === 'timestamp' ? '2025-01-31T12:00:00Z' : undefined}
                    onInput={(e) => set(c.nom, (e.target as HTMLInputElement).value)} />}
              {problem ? <span class="field-error" id={`${id}-error`}>{problem}</span> : null}
            </label>
          );
        })}
      </div>
      <p class="muted small">{t({ en: 'An empty field clears the value. Checked by the server as the API checks a row.', fr: 'Un champ vide efface la valeur. Vérifié par le serveur comme l’API vérifie une ligne.' })}</p>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy} aria-busy={busy}>{row ? t({ en: 'Save', fr: 'Enregistrer' }) : t({ en: 'Add the row', fr: 'Ajouter la ligne' })}</button>
        <button type="button" onClick={onCancel}>{t({ en: 'Cancel', fr: 'Annuler' })}</button>
      </div>
    </form>
  );
}

function ImportForm({ jeu, table, onDone }: { jeu: string; table: TableInfo; onDone: () => void }) {
  useLang();
  const [format, setFormat] = useState<'csv' | 'json'>('csv');
  const [contenu, setContenu] = useState('');
  const [nom, setNom] = useState<string>();
  const [mode, setMode] = useState<'ajout' | 'replace' | 'cle'>('ajout');
  const [cle, setCle] = useState(table.colonnes[0]?.nom ?? '');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ImportResult>();
  const [error, setError] = useState<unknown>();
  const pick = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (!file) return;
    setNom(file.name);
    if (/\.json$/i.test(file.name)) setFormat('json');
    else if (/\.csv$/i.test(file.name)) setFormat('csv');
    setContenu(await file.text());
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await api.post<ImportResult>(gamePath(jeu, 'tables', table.nom, 'import'),
        { format, contenu, mode, ...(mode === 'cle' ? { cle } : {}), ...(nom ? { nom } : {}) }));
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="import-form" onSubmit={submit}>
      <div class="form-grid">
        <label class="field">{t({ en: 'File (CSV or JSON)', fr: 'Fichier (CSV ou JSON)' })}
          <input type="file" accept=".csv,.json,text/csv,application/json" onChange={pick} />
        </label>
        <label class="field">{t({ en: 'Format', fr: 'Format' })}
          <select value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value as 'csv' | 'json')}>
            <option value="csv">CSV</option><option value="json">JSON</option>
          </select>
        </label>
        <label class="field">{t({ en: 'Mode', fr: 'Mode' })}
          <select value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as 'ajout' | 'replace' | 'cle')}>
            <option value="ajout">{t({ en: 'Add the rows', fr: 'Ajouter les lignes' })}</option>
            <option value="replace">{t({ en: 'Replace the rows without owner (--replace)', fr: 'Remplacer les lignes sans propriétaire (--replace)' })}</option>
            <option value="cle">{t({ en: 'Update by key, add the others (--cle)', fr: 'Mettre à jour par clé, ajouter les autres (--cle)' })}</option>
          </select>
        </label>
        {mode === 'cle' && (
          <label class="field">{t({ en: 'Key column', fr: 'Colonne clé' })}
            <select value={cle} onChange={(e) => setCle((e.target as HTMLSelectElement).value)}>
              {table.colonnes.map((c) => <option value={c.nom}>{c.nom}</option>)}
            </select>
          </label>
        )}
      </div>
      <label class="field">{t({ en: 'Or paste the content', fr: 'Ou colle le contenu' })}
        <textarea rows={5} value={contenu} placeholder={format === 'csv' ? table.colonnes.map((c) => c.nom).join(',') : '[{"…": "…"}]'}
          onInput={(e) => { setContenu((e.target as HTMLTextAreaElement).value); setNom(undefined); }} />
      </label>
      <p class="muted small">{t({
        en: 'All or nothing, each row checked as the API checks it, as `manette import` does (50 MB, 100,000 rows at most). Imported rows have no owner.',
        fr: 'Tout ou rien, chaque ligne vérifiée comme par l’API, comme le fait `manette import` (50 Mo, 100 000 lignes au plus). Les lignes importées n’ont pas de propriétaire.',
      })}</p>
      <div class="actions">
        {mode === 'replace'
          ? <ConfirmButton label={t({ en: 'Import and replace', fr: 'Importer et remplacer' })} confirm={t({ en: 'Really replace the rows?', fr: 'Vraiment remplacer les lignes ?' })}
            disabled={busy || contenu.trim() === ''} action={() => submit(new Event('submit'))} />
          : <button type="submit" class="primary" disabled={busy || contenu.trim() === ''} aria-busy={busy}>{t({ en: 'Import', fr: 'Importer' })}</button>}
      </div>
      {result && (
        <p class="success" role="status">{t({
          en: '{n} row(s) imported: {i} inserted, {u} updated, {d} deleted.',
          fr: '{n} ligne(s) importée(s) : {i} ajoutée(s), {u} mise(s) à jour, {d} supprimée(s).',
        }, { n: result.importees, i: result.inserees, u: result.mises_a_jour, d: result.supprimees })}</p>
      )}
      <ErrorBox error={error} />
    </form>
  );
}

function TableRows({ jeu, table, reloadList }: { jeu: string; table: TableInfo; reloadList: () => void }) {
  useLang();
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [offset, setOffset] = useState(0);
  const [editing, setEditing] = useState<Row | 'new'>();
  const [importing, setImporting] = useState(false);
  const rows = useLoad(() => api.get<RowsPage>(gamePath(jeu, 'tables', table.nom, 'rows') + qs({ ...filters, limit: LIMIT, offset })),
    [jeu, table.nom, JSON.stringify(filters), offset]);
  const server = table.ecriture === 'serveur';
  const done = () => { setEditing(undefined); rows.reload(); reloadList(); };
  const columns: Column<Row>[] = [
    ...table.colonnes.map((c): Column<Row> => ({
      label: c.nom,
      class: c.type === 'integer' || c.type === 'number' ? 'num' : undefined,
      cell: (r) => {
        const v = r.donnees[c.nom];
        if (v === undefined) return <span class="muted">—</span>;
        if (c.type === 'json') return <Json value={v} max={60} />;
        if (c.type === 'boolean') return <code>{String(v)}</code>;
        return String(v);
      },
    })),
    { label: t({ en: 'Owner', fr: 'Propriétaire' }), cell: (r) => r.joueur_id
      ? <a href={href(jeu, 'players', r.joueur_id)}>{r.pseudo ?? r.joueur_id.slice(0, 8)}</a>
      : <span class="muted">{t({ en: 'server', fr: 'serveur' })}</span> },
    { label: t({ en: 'Updated', fr: 'Modifiée' }), cell: (r) => <span class="small" title={`${t({ en: 'created', fr: 'créée' })} ${when(r.cree_le)} · id ${r.id}`}>{when(r.maj_le)}</span> },
    ...(server ? [{
      label: t({ en: 'Actions', fr: 'Actions' }),
      cell: (r: Row) => (
        <div class="actions row-actions">
          <button type="button" onClick={() => setEditing(r)}>{t({ en: 'Edit', fr: 'Modifier' })}</button>
          <ConfirmButton label={t({ en: 'Delete', fr: 'Supprimer' })} confirm={t({ en: 'Really delete?', fr: 'Vraiment supprimer ?' })}
            action={async () => { await api.del(gamePath(jeu, 'tables', table.nom, 'rows', r.id)); done(); }} />
        </div>
      ),
    }] : []),
  ];
  const apply = (e: Event) => {
    e.preventDefault();
    setOffset(0);
    setFilters(Object.fromEntries(Object.entries(draft).filter(([, v]) => v.trim() !== '')));
  };
  return (
    <>
      <p><a href={href(jeu, 'tables')}>{t({ en: '← All tables', fr: '← Toutes les tables' })}</a></p>
      <Card title={<>{table.nom} <span class="badge">{t({ en: 'read', fr: 'lecture' })}: {t(READ[table.lecture] ?? { en: table.lecture, fr: table.lecture })}</span>{' '}
        <span class={`badge ${server ? 'live' : ''}`}>{t({ en: 'write', fr: 'écriture' })}: {t(WRITE[table.ecriture] ?? { en: table.ecriture, fr: table.ecriture })}</span></>}
        actions={<>
          {server && <button type="button" class="primary" onClick={() => setEditing('new')}>{t({ en: 'Add a row', fr: 'Ajouter une ligne' })}</button>}
          <button type="button" aria-expanded={importing} onClick={() => setImporting(!importing)}>{t({ en: 'Import…', fr: 'Importer…' })}</button>
        </>}>
        {!server && <p class="notice small">{t({
          en: 'Players write this table (write: players): their rows are read-only here. An import adds rows without owner.',
          fr: 'Les joueurs écrivent cette table (écriture : joueurs) : leurs lignes sont en lecture seule ici. Un import ajoute des lignes sans propriétaire.',
        })}</p>}
        {importing && <ImportForm jeu={jeu} table={table} onDone={done} />}
        {editing && (
          <section class="card edit-card" aria-live="polite">
            <h3>{editing === 'new' ? t({ en: 'New row', fr: 'Nouvelle ligne' }) : t({ en: 'Edit row {id}', fr: 'Modifier la ligne {id}' }, { id: editing.id.slice(0, 8) })}</h3>
            <RowForm key={editing === 'new' ? 'new' : editing.id} jeu={jeu} table={table} row={editing === 'new' ? undefined : editing}
              onDone={done} onCancel={() => setEditing(undefined)} />
          </section>
        )}
        <form class="inline filters" onSubmit={apply} aria-label={t({ en: 'Filters', fr: 'Filtres' })}>
          {table.colonnes.filter((c) => c.type !== 'json').map((c) => (
            <label class="field" key={c.nom}>{c.nom}
              <input type="text" size={10} value={draft[c.nom] ?? ''} placeholder={c.type}
                onInput={(e) => setDraft((d) => ({ ...d, [c.nom]: (e.target as HTMLInputElement).value }))} />
            </label>
          ))}
          <label class="field">{t({ en: 'player id', fr: 'id du joueur' })}
            <input type="text" size={12} value={draft.joueur_id ?? ''} placeholder="uuid"
              onInput={(e) => setDraft((d) => ({ ...d, joueur_id: (e.target as HTMLInputElement).value }))} />
          </label>
          <button type="submit">{t({ en: 'Filter', fr: 'Filtrer' })}</button>
          {Object.keys(filters).length > 0 && <button type="button" onClick={() => { setDraft({}); setFilters({}); setOffset(0); }}>{t({ en: 'Clear', fr: 'Effacer' })}</button>}
        </form>
        <Show loaded={rows}>{(page) => (
          <>
            <DataTable columns={columns} rows={page.lignes} rowKey={(r) => r.id}
              empty={Object.keys(filters).length ? t({ en: 'No row matches.', fr: 'Aucune ligne ne correspond.' }) : t({ en: 'No row yet.', fr: 'Aucune ligne pour l’instant.' })} />
            <Pager offset={offset} limit={LIMIT} more={page.plus} onPage={setOffset} />
          </>
        )}</Show>
      </Card>
    </>
  );
}

function TablesView({ jeu, rest }: PageProps) {
  useLang();
  const name = rest[0];
  const tables = useLoad(() => api.get<TableInfo[]>(gamePath(jeu, 'tables')), [jeu]);
  useEffect(() => { window.scrollTo(0, 0); }, [name]);
  if (!name) return <TablesList jeu={jeu} />;
  return (
    <Show loaded={tables}>{(list) => {
      const table = list.find((x) => x.nom === name);
      if (!table) return <ErrorBox error={new ConsoleApiError(404, 'table_not_found', t({ en: 'Table not found.', fr: 'Table introuvable.' }))} />;
      return <TableRows key={table.nom} jeu={jeu} table={table} reloadList={tables.reload} />;
    }}</Show>
  );
}

export const tablesPage: ConsolePage = {
  id: 'tables',
  label: { en: 'Tables', fr: 'Tables' },
  component: (props) => <TablesView {...props} />,
};
