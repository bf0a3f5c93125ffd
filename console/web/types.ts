// What the shell gives every page.
import type { JSX } from 'preact';
import type { Text } from './i18n.js';

export interface GameSummary { jeu: string; nom: string; cree_le: string }
export interface SessionInfo {
  csrf: string; lang: 'fr' | 'en'; operator: string;
  /** The game file the panel editor writes (null: none given). */
  fichier_jeu: string | null;
  /** The Realtime the live pages listen to (null: none; they refresh themselves). */
  realtime: { url: string } | null;
}

export interface PageProps {
  jeu: string;
  game: GameSummary;
  /** The path after #/<jeu>/<page>/ (e.g. a player's id). */
  rest: string[];
  query: URLSearchParams;
  session: SessionInfo;
}

export interface ConsolePage { id: string; label: Text; component: (props: PageProps) => JSX.Element }
