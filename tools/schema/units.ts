// supabase/schema read as units that `npm run migration` compares (tools/schema/migration.ts):
// a function by its signature (with its owner, grants and comment), a view, a table's
// grants, a comment, a policy, a trigger, an index; everything else (a table's columns and
// constraints, types, sequences, schemas, roles) as statements to write by hand.
//
// Comments between statements are left out (the generator's headers: `-- Current
// definition from`, `-- Earlier versions in`, `-- Calls:`, `-- Called by:`, `-- Fires:`,
// section titles), so two folders that differ only there are the same units.
import type { Snapshot } from './generate.js';

/** One SQL statement of a snapshot file, without its leading comments and final `;`. */
export interface Statement { file: string; sql: string }

export type UnitKind = 'function' | 'view' | 'grants' | 'comment' | 'policy' | 'trigger' | 'index' | 'hand';

export interface Unit {
  kind: UnitKind;
  /** What it is, e.g. `function api.match_action(jsonb,jsonb)`, `policy "x" on manette.matches`. */
  key: string;
  file: string;
  /** Its statements, in file order (a function's or view's create first). */
  stmts: string[];
  /** A function's or view's: `function`/`procedure`/`view`/`materialized view`, and its name with arguments. */
  what?: string;
  target?: string;
}

export type Units = Map<string, Unit>;

/**
 * Splits SQL into statements at the `;` outside strings, quoted names, dollar quotes and
 * comments; drops each statement's leading comments and blank lines.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') {
      const e = sql.indexOf('\n', i);
      i = e < 0 ? n : e + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') { depth++; i += 2; } else if (sql[i] === '*' && sql[i + 1] === '/') { depth--; i += 2; } else i++;
      }
    } else if (c === "'") {
      const escapes = /[eE]/.test(sql[i - 1] ?? '') && !/[A-Za-z0-9_]/.test(sql[i - 2] ?? '');
      i++;
      while (i < n) {
        if (escapes && sql[i] === '\\') { i += 2; continue; }
        if (sql[i] === "'") { if (sql[i + 1] === "'") { i += 2; continue; } i++; break; }
        i++;
      }
    } else if (c === '"') {
      i++;
      while (i < n) {
        if (sql[i] === '"') { if (sql[i + 1] === '"') { i += 2; continue; } i++; break; }
        i++;
      }
    } else if (c === '$' && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (m) {
        const e = sql.indexOf(m[0], i + m[0].length);
        i = e < 0 ? n : e + m[0].length;
      } else i++;
    } else if (c === ';') {
      out.push(sql.slice(start, i));
      i++;
      start = i;
    } else i++;
  }
  out.push(sql.slice(start));
  return out.map(stripLeadingComments).filter((s) => s !== '');
}

function stripLeadingComments(s: string): string {
  let t = s.replace(/\s+$/, '');
  for (;;) {
    t = t.replace(/^\s+/, '');
    if (t.startsWith('--')) {
      const e = t.indexOf('\n');
      t = e < 0 ? '' : t.slice(e + 1);
    } else if (t.startsWith('/*')) {
      const e = t.indexOf('*/');
      t = e < 0 ? '' : t.slice(e + 2);
    } else return t;
  }
}

const NAME = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
const QNAME = String.raw`${NAME}(?:\.${NAME})?`;
const re = (s: string, flags = 'i') => new RegExp(s, flags);

/** Resolves a function's create statement to its signature (`schema.name(argtypes)`) and kind. */
export type SignatureOf = (create: string, file: string) => Promise<{ sig: string; kind: 'function' | 'procedure' }>;

/** The signature a snapshot file's `alter function <sig> owner to` line names after a create (the generator writes one). */
export function signatureFromOwnerLine(stmts: string[]): { sig: string; kind: 'function' | 'procedure' } | undefined {
  for (const s of stmts) {
    const m = /^alter\s+(function|procedure)\s+([\s\S]+\))\s+owner\s+to\s/i.exec(s);
    if (m) return { kind: m[1]!.toLowerCase() as 'function' | 'procedure', sig: m[2]! };
  }
  return undefined;
}

/** Reads a snapshot (relative path → text) as units. */
export async function parseUnits(snapshot: Snapshot, signatureOf: SignatureOf): Promise<Units> {
  const units: Units = new Map();
  const add = (u: Unit) => {
    const seen = units.get(u.key);
    if (seen) seen.stmts.push(...u.stmts);
    else units.set(u.key, u);
  };
  const hand = (file: string, sql: string, key = `${file}: ${sql}`) => add({ kind: 'hand', key, file, stmts: [sql] });

  for (const [file, text] of snapshot) {
    const stmts = splitStatements(text);
    if (file.startsWith('functions/') || file.startsWith('views/')) {
      // A create, then the statements about it (owner, grants, comment) until the next create.
      const groups: string[][] = [];
      for (const s of stmts) {
        if (re(String.raw`^create\s+(or\s+replace\s+)?(function|procedure|view|materialized\s+view)\s`).test(s)) groups.push([s]);
        else if (groups.length) groups.at(-1)!.push(s);
        else hand(file, s);
      }
      for (const g of groups) {
        const create = g[0]!;
        let kind: UnitKind, what: string, target: string;
        const view = re(String.raw`^create\s+(?:or\s+replace\s+)?(view|materialized\s+view)\s+(${QNAME})`).exec(create);
        if (view) {
          kind = 'view';
          what = view[1]!.toLowerCase().replace(/\s+/g, ' ');
          target = view[2]!;
        } else {
          const sig = await signatureOf(create, file);
          kind = 'function';
          what = sig.kind;
          target = sig.sig;
        }
        add({ kind, key: `${what} ${target}`, file, stmts: g, what, target });
      }
      continue;
    }
    if (file.startsWith('tables/')) {
      for (const s of stmts) {
        let m: RegExpExecArray | null;
        if ((m = re(String.raw`^(?:grant|revoke)\s[\s\S]*?\son\s+table\s+(${QNAME})\s`).exec(s))) {
          add({ kind: 'grants', key: `grants on table ${m[1]}`, file, stmts: [s], target: m[1] });
        } else if ((m = re(String.raw`^comment\s+on\s+((?:table|column)\s+${QNAME}(?:\.${NAME})?)\s+is\s`).exec(s))) {
          add({ kind: 'comment', key: `comment on ${m[1]}`, file, stmts: [s], target: m[1] });
        } else if ((m = re(String.raw`^create\s+(?:unique\s+)?index\s+(?:concurrently\s+)?(${NAME})\s+on\s+(?:only\s+)?(${NAME})\.`).exec(s))) {
          const target = `${m[2]}.${m[1]}`;
          add({ kind: 'index', key: `index ${target}`, file, stmts: [s], target });
        } else if ((m = re(String.raw`^create\s+policy\s+(${NAME})\s+on\s+(${QNAME})\s`).exec(s))) {
          const target = `${m[1]} on ${m[2]}`;
          add({ kind: 'policy', key: `policy ${target}`, file, stmts: [s], target });
        } else if ((m = re(String.raw`^create\s+(?:or\s+replace\s+)?(?:constraint\s+)?trigger\s+(${NAME})\s[\s\S]*?\son\s+(${QNAME})\s`).exec(s))) {
          const target = `${m[1]} on ${m[2]}`;
          add({ kind: 'trigger', key: `trigger ${target}`, file, stmts: [s], target });
        } else if ((m = re(String.raw`^alter\s+table\s+(${QNAME})\s+(?:enable|disable)\s+(?:replica\s+|always\s+)?trigger\s+(${NAME})$`).exec(s))) {
          const target = `${m[2]} on ${m[1]}`;
          add({ kind: 'trigger', key: `trigger ${target}`, file, stmts: [s], target });
        } else if ((m = re(String.raw`^create\s+(?:unlogged\s+)?table\s+(${QNAME})`).exec(s))) {
          hand(file, s, `table ${m[1]}`);
        } else hand(file, s);
      }
      continue;
    }
    // types/, sequences/, schemas.sql, roles.sql: by hand.
    for (const s of stmts) {
      const m = re(String.raw`^create\s+(type|domain|sequence|schema|role)\s+(${QNAME})`).exec(s);
      if (m) hand(file, s, `${m[1]!.toLowerCase()} ${m[2]}`);
      else hand(file, s);
    }
  }
  return units;
}

/** Two units say the same. */
export const sameUnit = (a: Unit | undefined, b: Unit | undefined) =>
  !!a && !!b && a.stmts.length === b.stmts.length && a.stmts.every((s, i) => s === b.stmts[i]);

/** The keys whose units differ between two sets (added, removed or changed), sorted. */
export function differingKeys(from: Units, to: Units): string[] {
  const keys = new Set([...from.keys(), ...to.keys()]);
  return [...keys].filter((k) => !sameUnit(from.get(k), to.get(k))).sort();
}

/** A generated statement and the snapshot file it comes from. */
export interface Generated { sql: string; file: string }

export interface Plan {
  /** The statements, in the order they apply. */
  statements: Generated[];
  /** What is left to write by hand, one line each (`changed: tables/x.sql: create table x`). */
  byHand: string[];
}

// The order the statements apply in: drops of triggers and policies first (they may use a
// function that changes or goes), then functions, views, functions dropped, grants and
// comments, policies, triggers, indexes.
const PHASES = ['drop trigger', 'drop policy', 'drop view', 'function', 'view', 'drop function', 'grants', 'comment', 'policy', 'trigger', 'index'] as const;
type Phase = (typeof PHASES)[number];

const firstLine = (sql: string) => {
  const l = sql.split('\n')[0]!;
  return l.length > 110 ? `${l.slice(0, 107)}...` : l;
};

/** Grantees of `grant ... to <grantees>` statements (for the revoke before the new grants). */
function granteesOf(stmts: string[]): string[] {
  const out = new Set<string>();
  for (const s of stmts) {
    const m = /^grant\s[\s\S]*?\sto\s+([\s\S]+?)(?:\s+with\s+grant\s+option)?$/i.exec(s);
    if (m) for (const g of m[1]!.split(',')) out.add(g.trim());
  }
  return [...out].sort();
}

const isGrant = (s: string) => /^(grant|revoke)\s/i.test(s);
const isOwner = (s: string) => /^alter\s+(function|procedure|view|materialized\s+view|table)\s[\s\S]*\sowner\s+to\s/i.test(s);
const isComment = (s: string) => /^comment\s+on\s/i.test(s);

/** The statements that take a database whose snapshot reads as `from` to one that reads as `to`. */
export function planMigration(from: Units, to: Units): Plan {
  const phases = new Map<Phase, Generated[]>(PHASES.map((p) => [p, []]));
  const emit = (phase: Phase, file: string, sql: string) => phases.get(phase)!.push({ sql, file });
  const byHand: string[] = [];

  for (const key of differingKeys(from, to)) {
    const old = from.get(key), neu = to.get(key);
    const u = (neu ?? old)!;
    const file = u.file;
    switch (u.kind) {
      case 'function':
      case 'view': {
        const objectKind = u.what!; // function, procedure, view, materialized view
        const target = u.target!;
        if (!neu) {
          emit(u.kind === 'view' ? 'drop view' : 'drop function', file, `drop ${objectKind} ${target}`);
          break;
        }
        if (objectKind === 'materialized view') {
          byHand.push(`${old ? 'changed' : 'added'}: ${file}: materialized view ${target}`);
          break;
        }
        const phase: Phase = u.kind === 'view' ? 'view' : 'function';
        const [create, ...rest] = neu.stmts;
        const [oldCreate, ...oldRest] = old?.stmts ?? [];
        if (create !== oldCreate) {
          // `create` as written becomes `create or replace` (the object may exist already).
          emit(phase, file, create!.replace(/^create\s+(?!or\s+replace\s)/i, 'create or replace '));
        }
        const pick = (stmts: string[], f: (s: string) => boolean) => stmts.filter(f);
        const owner = pick(rest, isOwner), oldOwner = pick(oldRest, isOwner);
        if (owner.join('\n') !== oldOwner.join('\n')) for (const s of owner) emit(phase, file, s);
        const grants = pick(rest, isGrant), oldGrants = old ? pick(oldRest, isGrant) : [];
        if (!old || grants.join('\n') !== oldGrants.join('\n')) {
          const was = granteesOf(oldGrants);
          if (old && was.length) emit(phase, file, `revoke all on ${u.kind === 'view' ? 'table' : objectKind} ${target} from ${was.join(', ')}`);
          for (const s of grants) emit(phase, file, s);
        }
        const comments = pick(rest, isComment), oldComments = pick(oldRest, isComment);
        if (comments.join('\n') !== oldComments.join('\n')) {
          for (const s of comments) emit(phase, file, s);
          if (!comments.length) emit(phase, file, `comment on ${objectKind} ${target} is null`);
        }
        const other = rest.filter((s) => !isOwner(s) && !isGrant(s) && !isComment(s));
        const oldOther = oldRest.filter((s) => !isOwner(s) && !isGrant(s) && !isComment(s));
        for (const s of other) if (!oldOther.includes(s)) byHand.push(`added: ${file}: ${firstLine(s)}`);
        for (const s of oldOther) if (!other.includes(s)) byHand.push(`removed: ${file}: ${firstLine(s)}`);
        break;
      }
      case 'grants': {
        const was = granteesOf(old?.stmts ?? []);
        if (was.length) emit('grants', file, `revoke all on table ${u.target} from ${was.join(', ')}`);
        for (const s of neu?.stmts ?? []) emit('grants', file, s);
        break;
      }
      case 'comment':
        emit('comment', file, neu ? neu.stmts[0]! : `comment on ${u.target} is null`);
        break;
      case 'policy':
      case 'trigger':
        if (old) emit(u.kind === 'policy' ? 'drop policy' : 'drop trigger', file, `drop ${u.kind} ${u.target}`);
        for (const s of neu?.stmts ?? []) emit(u.kind, file, s);
        break;
      case 'index':
        if (old) emit('index', file, `drop index ${u.target}`);
        for (const s of neu?.stmts ?? []) emit('index', file, s);
        break;
      case 'hand': {
        byHand.push(`${!old ? 'added' : !neu ? 'removed' : 'changed'}: ${file}: ${firstLine(u.stmts[0]!)}`);
        if (old && neu) {
          // Which lines moved (a column, a constraint).
          const was = old.stmts.join('\n').split('\n').map((l) => l.trim()), is = neu.stmts.join('\n').split('\n').map((l) => l.trim());
          for (const l of was) if (!is.includes(l)) byHand.push(`    - ${l}`);
          for (const l of is) if (!was.includes(l)) byHand.push(`    + ${l}`);
        }
        break;
      }
    }
  }
  return { statements: PHASES.flatMap((p) => phases.get(p)!), byHand };
}
