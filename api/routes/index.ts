// Every public operation, in documentation order.
import type { RouteDef } from '../http/route.js';
import register from './players/register.js';
import login from './players/login.js';
import google from './players/google.js';
import logout from './players/logout.js';
import me from './players/me.js';
import avatar from './players/avatar.js';
import realtimeConfig from './system/realtime-config.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const routes: RouteDef<any, any, any>[] = [register, login, google, logout, me, avatar, realtimeConfig];
