// What every page draws with: loading a call's answer, errors as the server says them
// (with the fields it names), tables, paging, two-step confirmations.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ConsoleApiError } from './api.js';
import { t, useLang } from './i18n.js';

export interface Loaded<T> { data: T | undefined; error: unknown; loading: boolean; reload(): void }

/** Runs `load` now and whenever `deps` change (and on reload()); `everyMs` refreshes it. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], everyMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then((data) => live && setState({ data, error: undefined, loading: false }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })));
    return () => { live = false; };
  }, [...deps, tick]);
  useEffect(() => {
    if (!everyMs) return;
    const id = setInterval(reload, everyMs);
    return () => clearInterval(id);
  }, [everyMs, reload]);
  return { ...state, reload };
}

export function ErrorBox({ error }: { error: unknown }) {
  useLang();
  if (!error) return null;
  const e = error instanceof ConsoleApiError ? error : undefined;
  return (
    <div class="error" role="alert">
      <p><strong>{e?.message ?? String((error as Error)?.message ?? error)}</strong>{e ? <code class="code-tag">{e.code}</code> : null}</p>
      {e && e.details.length > 0 && (
        <ul>{e.details.map((d) => <li key={d.champ}><code>{d.champ}</code> : {d.message}</li>)}</ul>
      )}
    </div>
  );
}

export function Loading() {
  useLang();
  return <p class="muted" aria-live="polite">{t({ en: 'Loading…', fr: 'Chargement…' })}</p>;
}

/** The answer of a Loaded, or loading / the error. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.data === undefined) return loaded.error ? <ErrorBox error={loaded.error} /> : <Loading />;
  return <>{loaded.error ? <ErrorBox error={loaded.error} /> : null}{children(loaded.data)}</>;
}

export interface Column<R> { label: string; cell: (row: R) => ComponentChildren; class?: string }

export function DataTable<R>({ columns, rows, empty, rowKey, caption }: {
  columns: Column<R>[]; rows: R[]; empty?: string; rowKey: (row: R) => string; caption?: string;
}) {
  useLang();
  if (rows.length === 0) return <p class="muted empty">{empty ?? t({ en: 'Nothing yet.', fr: 'Rien pour l’instant.' })}</p>;
  return (
    <div class="table-wrap">
      <table>
        {caption ? <caption>{caption}</caption> : null}
        <thead><tr>{columns.map((c) => <th scope="col" class={c.class}>{c.label}</th>)}</tr></thead>
        <tbody>{rows.map((r) => <tr key={rowKey(r)}>{columns.map((c) => <td class={c.class}>{c.cell(r)}</td>)}</tr>)}</tbody>
      </table>
    </div>
  );
}

/** Previous / next over `limit`-sized pages; `more`: whether a next page exists. */
export function Pager({ offset, limit, more, onPage }: { offset: number; limit: number; more: boolean; onPage: (offset: number) => void }) {
  useLang();
  if (offset === 0 && !more) return null;
  return (
    <nav class="pager" aria-label={t({ en: 'Pages', fr: 'Pages' })}>
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>{t({ en: '← Previous', fr: '← Précédents' })}</button>
      <span class="muted">{t({ en: 'from {a}', fr: 'à partir de {a}' }, { a: offset + 1 })}</span>
      <button type="button" disabled={!more} onClick={() => onPage(offset + limit)}>{t({ en: 'Next →', fr: 'Suivants →' })}</button>
    </nav>
  );
}

/**
 * A button that asks once more before it acts ("Revoke" → "Really revoke?"), then runs
 * `action`; its failure is shown beside it.
 */
export function ConfirmButton({ label, confirm, action, danger = true, disabled = false }: {
  label: string; confirm: string; action: () => Promise<unknown>; danger?: boolean; disabled?: boolean;
}) {
  useLang();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const click = async () => {
    if (!asking) {
      setAsking(true);
      timer.current = setTimeout(() => setAsking(false), 5000);
      return;
    }
    clearTimeout(timer.current);
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <span class="confirm">
      <button type="button" class={danger ? 'danger' : 'primary'} disabled={disabled || busy} aria-busy={busy} onClick={click}>
        {asking ? confirm : label}
      </button>
      {error ? <ErrorBox error={error} /> : null}
    </span>
  );
}

/** JSON shown compactly, whole on hover/expand. */
export function Json({ value, max = 120 }: { value: unknown; max?: number }) {
  const text = JSON.stringify(value);
  if (text === undefined) return <span class="muted">—</span>;
  if (text.length <= max) return <code class="json">{text}</code>;
  return <details class="json"><summary><code>{text.slice(0, max)}…</code></summary><pre>{JSON.stringify(value, null, 2)}</pre></details>;
}

export function Card({ title, children, actions }: { title: ComponentChildren; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <header class="card-head"><h2>{title}</h2>{actions ? <div class="actions">{actions}</div> : null}</header>
      {children}
    </section>
  );
}

export function Stat({ label, value, hint }: { label: string; value: ComponentChildren; hint?: string }) {
  return <div class="stat"><span class="stat-label">{label}</span><span class="stat-value">{value}</span>{hint ? <span class="muted small">{hint}</span> : null}</div>;
}
