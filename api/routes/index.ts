// Every public operation, grouped by resource, in documentation order.
// Each route file names the api.* function it calls.
import type { RouteDef } from '../http/route.js';
import players from './players/index.js';
import tables from './tables/index.js';
import storage from './storage/index.js';
import leaderboards from './leaderboards/index.js';
import shop from './shop/index.js';
import economie from './economie/index.js';
import matchmaking from './matchmaking/index.js';
import match from './match/index.js';
import notifications from './notifications/index.js';
import system from './system/index.js';

export const routes: RouteDef<any, any, any>[] = [
  ...players, ...tables, ...storage, ...leaderboards, ...shop, ...economie, ...matchmaking, ...match, ...notifications, ...system,
];
