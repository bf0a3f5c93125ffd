// The peer of bench/peer-colyseus.ts: a Colyseus 0.18 server (rooms kept in memory, as
// Colyseus does) with one room type, "duel", playing the same game as bench/match.ts's
// default rules, Manette's `tour_par_tour`:
//   - two players (maxClients 2, seats in join order); the match starts when the second
//     joins: numero_tour 1, tour_joueur the first seat;
//   - an action `coup` carries { numero_tour, donnees }: refused with `pas_ton_tour` when the
//     sender is not tour_joueur, `tour_perime` when numero_tour is not the current turn,
//     `donnees_invalides` when donnees is not an object; else donnees is merged into the
//     board (etat_plateau, a map of moves), the turn passes to the other seat and
//     numero_tour goes up by 1;
//   - the state (the counterpart of Manette's `etat`: board, tour_joueur, numero_tour,
//     statut) is synchronized to both clients at once, by `broadcastPatch()` right after the
//     move (patchRate off: no 50 ms tick to wait for, as Manette broadcasts right after its
//     commit); the sender gets the answer of its request (Colyseus 0.18's room.request, the
//     counterpart of the HTTP response of POST /match/action).
//
//   node bench/peers/colyseus/server.mjs [--port 2567]
// Listens on 127.0.0.1 only; prints `colyseus listening on ws://127.0.0.1:PORT` when ready.
import { parseArgs } from 'node:util';
import { Server, Room } from '@colyseus/core';
import { WebSocketTransport } from '@colyseus/ws-transport';
import { schema, t } from '@colyseus/schema';

const { values: opts } = parseArgs({ options: { port: { type: 'string', default: '2567' } } });

const DuelState = schema({
  statut: t.string(),                  // en_attente, en_cours
  joueurs: t.array('string'),        // session ids, in seat order
  tour_joueur: t.string(),
  numero_tour: t.number(),
  etat_plateau: t.map('number'),     // the board: one entry per move (key → seat), as bench/match.ts plays
}, 'DuelState');

class DuelRoom extends Room {
  maxClients = 2;

  onCreate() {
    this.state = new DuelState();
    this.state.statut = 'en_attente';
    this.state.tour_joueur = '';
    this.state.numero_tour = 0;
    this.patchRate = null;
    this.onMessage('coup', (client, message, ctx) => {
      const s = this.state;
      if (s.statut !== 'en_cours' || s.tour_joueur !== client.sessionId) return ctx.reject('pas_ton_tour');
      if (message?.numero_tour !== s.numero_tour) return ctx.reject('tour_perime');
      const donnees = message.donnees;
      if (donnees === null || typeof donnees !== 'object' || Array.isArray(donnees)) return ctx.reject('donnees_invalides');
      for (const [key, value] of Object.entries(donnees)) {
        if (typeof value !== 'number') return ctx.reject('donnees_invalides');
        s.etat_plateau.set(key, value);
      }
      const seat = s.joueurs.indexOf(client.sessionId);
      s.tour_joueur = s.joueurs[(seat + 1) % s.joueurs.length];
      s.numero_tour += 1;
      this.broadcastPatch();
      return { ok: true, numero_tour: s.numero_tour };
    });
  }

  onJoin(client) {
    this.state.joueurs.push(client.sessionId);
    if (this.state.joueurs.length === this.maxClients) {
      this.state.statut = 'en_cours';
      this.state.tour_joueur = this.state.joueurs[0];
      this.state.numero_tour = 1;
      this.broadcastPatch();
    }
  }
}

const server = new Server({ transport: new WebSocketTransport(), greet: false });
server.define('duel', DuelRoom);
await server.listen(Number(opts.port), '127.0.0.1');
console.log(`colyseus listening on ws://127.0.0.1:${opts.port}`);
