// Steam's Web API (ISteamUserAuth/AuthenticateUserTicket) played on a local port as Steamworks
// documents it: the twin's stand-in (twin/steam/server.ts), which `npm start` also runs for
// local development. Tests mint tickets with what Steam knows of them (the user, the app,
// the identity, bans, family sharing) and expire them.
export { startSteamStandIn as serveSteam, type SteamStandIn as SteamServer, type SteamTicket } from '../../twin/steam/server.js';
