// The console's pages, in the order of the menu: one file each.
import type { ConsolePage } from '../types.js';
import { overviewPage } from './overview.js';
import { playersPage } from './players.js';
import { tablesPage } from './tables.js';
import { leaderboardsPage } from './leaderboards.js';
import { matchesPage } from './matches.js';
import { keysPage } from './keys.js';
import { panelsPage } from './panels.js';
import { auditPage } from './audit.js';

export const PAGES: ConsolePage[] = [overviewPage, playersPage, tablesPage, leaderboardsPage, matchesPage, keysPage, panelsPage, auditPage];
