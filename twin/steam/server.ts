// The twin's Steam Web API, as far as a Steam login needs it: ISteamUserAuth/AuthenticateUserTicket
// (GET /ISteamUserAuth/AuthenticateUserTicket/v1/?key&appid&ticket[&identity]), answering as
// Steamworks documents it (partner.steamgames.com/doc/webapi/ISteamUserAuth):
//   {"response": {"params": {"result": "OK", "steamid", "ownersteamid", "vacbanned", "publisherbanned"}}}
// for a valid ticket of the app (and identity, when one is passed), and
//   {"response": {"error": {"errorcode", "errordesc"}}}
// otherwise; a missing or wrong publisher key is 403 with an HTML page, as the Web API does.
// Tickets are minted here (`mint`) with what Steam would know of them; with `testTickets`,
// it also accepts the documented test tickets of `npm start` (docs/accounts.md): the hex of
// the UTF-8 text `manette-test-ticket:<SteamID64>:<anything>` (any app id and identity),
// and GET /test-ticket?steamid=<SteamID64> hands one out. It plays nothing else of Steam.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface SteamTicket {
  steamid: string;
  /** The app the ticket was made for (GetAuthSessionTicket runs inside that app). */
  appid: number;
  /** GetAuthTicketForWebApi's identity, if the ticket was made for one. */
  identity?: string;
  /** Differs from steamid when the game is borrowed (Steam Family Sharing). */
  ownersteamid?: string;
  vacbanned?: boolean;
  publisherbanned?: boolean;
}

export interface SteamStandIn {
  /** http://127.0.0.1:<port> (MANETTE_STEAM_API_URL). */
  url: string;
  publisherKey: string;
  /** A new ticket (hex, as GetAuthTicketForWebApi's bytes are sent), known to this server. */
  mint(ticket: SteamTicket): string;
  /** The ticket is cancelled (CancelAuthTicket) or expired: Steam no longer accepts it. */
  expire(ticket: string): void;
  /** Every query this server answered (its parameters, the key included): what a verifier sent. */
  readonly requests: URLSearchParams[];
  close(): Promise<void>;
}

const FORBIDDEN = '<html><head><title>Forbidden</title></head><body><h1>Forbidden</h1>Access is denied. Retrying will not help. Please verify your <pre>key=</pre> parameter.</body></html>';
const TEST_PREFIX = 'manette-test-ticket:';

export async function startSteamStandIn(opts: { publisherKey?: string; port?: number; host?: string; testTickets?: boolean } = {}): Promise<SteamStandIn> {
  const publisherKey = opts.publisherKey ?? randomBytes(16).toString('hex').toUpperCase();
  const tickets = new Map<string, SteamTicket & { expired?: boolean }>();
  const requests: URLSearchParams[] = [];

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, errorcode: number, errordesc: string) =>
    json(res, 200, { response: { error: { errorcode, errordesc } } });

  function testTicket(hex: string): SteamTicket | undefined {
    if (!opts.testTickets || !/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
    const text = Buffer.from(hex, 'hex').toString('utf8');
    const m = text.startsWith(TEST_PREFIX) ? /^([0-9]{17}):/.exec(text.slice(TEST_PREFIX.length)) : null;
    return m ? { steamid: m[1]!, appid: -1 } : undefined;
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/test-ticket' && opts.testTickets) {
      const steamid = url.searchParams.get('steamid') ?? '76561197960287930';
      if (!/^[0-9]{17}$/.test(steamid)) return json(res, 400, { error: 'steamid: 17 digits' });
      return json(res, 200, { ticket: Buffer.from(`${TEST_PREFIX}${steamid}:${randomBytes(8).toString('hex')}`).toString('hex') });
    }
    if (req.method !== 'GET' || url.pathname !== '/ISteamUserAuth/AuthenticateUserTicket/v1/') {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<html><head><title>Not Found</title></head><body><h1>Not Found</h1></body></html>');
    }
    const q = url.searchParams;
    requests.push(q);
    if (q.get('key') !== publisherKey) {
      res.writeHead(403, { 'content-type': 'text/html' });
      return res.end(FORBIDDEN);
    }
    const appid = q.get('appid');
    const hex = q.get('ticket');
    if (!appid || !/^[0-9]+$/.test(appid) || !hex) return error(res, 3, 'Invalid parameter');
    const known = tickets.get(hex.toLowerCase());
    const ticket = known ?? testTicket(hex);
    if (!ticket || known?.expired) return error(res, 101, 'Invalid ticket');
    if (ticket.appid !== -1 && String(ticket.appid) !== appid) return error(res, 101, 'Invalid ticket');
    // "If this identity string is passed, only tickets created with that parameter will
    // successfully authenticate."
    const identity = q.get('identity');
    if (ticket.appid !== -1 && identity !== null && identity !== ticket.identity) return error(res, 101, 'Invalid ticket');
    return json(res, 200, {
      response: {
        params: {
          result: 'OK',
          steamid: ticket.steamid,
          ownersteamid: ticket.ownersteamid ?? ticket.steamid,
          vacbanned: ticket.vacbanned ?? false,
          publisherbanned: ticket.publisherbanned ?? false,
        },
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    publisherKey,
    requests,
    mint(ticket) {
      // Real tickets are a few hundred bytes; their hex is what a game sends.
      const hex = randomBytes(120).toString('hex');
      tickets.set(hex, ticket);
      return hex;
    },
    expire(hex) {
      const t = tickets.get(hex.toLowerCase());
      if (t) t.expired = true;
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
