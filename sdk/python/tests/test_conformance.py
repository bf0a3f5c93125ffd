"""The conformance suite (test/conformance/cases.json): one test per case, named
``test_<case id>``, against the conformance server (env MANETTE_CONFORMANCE_URL)."""
from __future__ import annotations

import os
import secrets
import tempfile
import time
from datetime import datetime, timezone

import pytest

import manette
from manette.http import Transport

from conftest import Recorder, World

#: X 0, O 3, X 1, O 4, X 2: X wins with 0, 1, 2.
SCRIPT = [("x", 0), ("o", 3), ("x", 1), ("o", 4), ("x", 2)]
#: The silence re-read of the tests (the SDK's default is 15 s).
POLL_S = 3.0


def steam_ticket(steam_id: str) -> str:
    """A test ticket of the twin's Steam stand-in: the hex of manette-test-ticket:<SteamID64>:<unique>."""
    return f"manette-test-ticket:{steam_id}:{secrets.token_hex(6)}".encode("utf-8").hex()


def follow(client: manette.Client, pid: str, name: str, poll_s: float = POLL_S):
    rec = Recorder(name)
    sub = client.match(pid).subscribe(on_action=rec.on_action, on_etat=rec.on_etat, on_error=rec.on_error, poll_s=poll_s)
    return rec, sub


def play(players, recs, pid, moves, timeout: float = 30.0) -> None:
    """Plays ``moves`` (indexes into SCRIPT), each player waiting until its own view says it is its turn."""
    for i in moves:
        who, case = SCRIPT[i]
        turn = i + 1
        view = recs[who].wait_turn(turn, timeout)
        assert view["numero_tour"] == turn and view["statut"] == "en_cours", view
        assert view["tour_joueur"] == players[who].auth.player["id"], view
        players[who].match(pid).act("jouer", {"case": case}, numero_tour=turn)


def assert_final(players, recs, pid) -> dict:
    server = players["x"].match(pid).state()
    assert server["statut"] == "terminee", server
    assert server["gagnant_id"] == players["x"].auth.player["id"], server
    for who in ("x", "o"):
        final = recs[who].wait_final()
        assert final == server, f"{who}'s final view differs from GET /match/state"
    return server


def assert_history(client: manette.Client, pid: str) -> None:
    h = client.match(pid).history()
    assert h["partie_id"] == pid
    assert [a["action"] for a in h["actions"]] == ["jouer"] * 5
    assert [a["donnees"]["case"] for a in h["actions"]] == [c for _, c in SCRIPT]


# -- players ---------------------------------------------------------------------------------

def test_auth_register(world: World):
    storage = manette.MemoryStorage()
    c = world.client(storage=storage)
    p = world.pseudo()
    joueur = c.auth.register(p, f"{p}@example.test", "mot-de-passe-1")
    assert joueur["pseudo"] == p and joueur["invite"] is False and joueur["id"]
    assert c.auth.player == joueur and c.auth.token and c.auth.token.startswith("pt_")
    # Kept in the client's storage: another client over it has the same session.
    other = world.client(storage=storage)
    assert other.auth.token == c.auth.token and other.auth.player["id"] == joueur["id"]


def test_auth_login(world: World):
    c = world.client()
    p = world.pseudo()
    joueur = c.auth.register(p, f"{p}@example.test", "mot-de-passe-1")
    by_pseudo = world.client().auth.login(p, "mot-de-passe-1")
    by_email = world.client().auth.login(f"{p}@example.test".upper(), "mot-de-passe-1")
    by_email_field = world.client().auth.login(email=f"{p}@example.test", password="mot-de-passe-1")
    assert by_pseudo["id"] == by_email["id"] == by_email_field["id"] == joueur["id"]


def test_auth_guest_link(world: World):
    c = world.client()
    guest = c.auth.guest()
    assert guest["invite"] is True
    c.auth.logout()
    assert c.auth.player is None
    again = c.auth.guest()
    assert again["id"] == guest["id"], "the same device id must give the same guest back"
    # A device id the game gives itself works the same way.
    own = "device_" + os.urandom(8).hex()
    g1 = world.client().auth.guest(appareil_id=own)
    g2 = world.client().auth.guest(appareil_id=own)
    assert g1["id"] == g2["id"] != guest["id"]
    p = world.pseudo()
    linked = c.auth.link(email=f"{p}@example.test", password="mot-de-passe-1", pseudo=p)
    assert linked["id"] == guest["id"] and linked["invite"] is False and linked["pseudo"] == p
    assert c.auth.player["invite"] is False
    assert world.client().auth.login(p, "mot-de-passe-1")["id"] == guest["id"]


def test_auth_restore(world: World):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "session.json")
        first = world.client(storage=manette.FileStorage(path))
        p = world.pseudo()
        joueur = first.auth.register(p, f"{p}@example.test", "mot-de-passe-1")
        first.close()
        # The game restarted: a new client over the same file, no login.
        restarted = world.client(storage=manette.FileStorage(path))
        restored = restarted.auth.restore()
        assert restored is not None and restored["id"] == joueur["id"]
        assert restarted.auth.player["id"] == joueur["id"]
        assert restarted.table("notes").list() == []  # the token works


def test_auth_logout(world: World):
    storage = manette.MemoryStorage()
    c = world.player(storage=storage)
    old = c.auth.token
    c.auth.logout()
    assert c.auth.token is None and c.auth.player is None
    t = Transport(c.base_url, c.api_key, "en")
    with pytest.raises(manette.ManetteError) as err:
        t.request("GET", "/players/me", token=old)
    assert err.value.error == "invalid_token" and err.value.status == 401
    assert world.client(storage=storage).auth.restore() is None
    assert c.auth.restore() is None


def test_auth_token(world: World):
    provider = world.control.config["tokenProvider"]
    sub = world.pseudo("sujet")
    first = world.identity_token(sub)
    a = world.client()
    joueur = a.auth.login_with_token(provider, first)
    assert joueur["id"] and a.auth.token and a.auth.player["id"] == joueur["id"], "a session is kept"
    assert a.table("notes").list() == []  # the token works
    again = world.client().auth.login_with_token(provider, world.identity_token(sub))
    assert again["id"] == joueur["id"], "the same subject, the same player"
    with pytest.raises(manette.ManetteError) as err:
        world.client().auth.login_with_token(provider, first)
    assert (err.value.error, err.value.status) == ("invalid_credentials", 401), "a token used again"
    guest = world.client()
    g = guest.auth.guest(appareil_id=False)
    linked = guest.auth.link(fournisseur=provider, jeton=world.identity_token(world.pseudo("sujet")))
    assert (linked["id"], linked["invite"]) == (g["id"], False), "the guest linked, the same id"
    assert guest.auth.player["invite"] is False


def test_auth_steam(world: World):
    steam_id = "7656119" + f"{secrets.randbelow(10 ** 10):010d}"
    first = steam_ticket(steam_id)
    a = world.client()
    joueur = a.auth.login_with_steam(first)
    assert joueur["id"] and a.auth.token and a.auth.player["id"] == joueur["id"], "a session is kept"
    # The ticket's bytes are hex-encoded by the SDK.
    again = world.client().auth.login_with_steam(bytes.fromhex(steam_ticket(steam_id)))
    assert again["id"] == joueur["id"], "the same SteamID, the same player"
    with pytest.raises(manette.ManetteError) as err:
        world.client().auth.login_with_steam(first)
    assert (err.value.error, err.value.status) == ("invalid_credentials", 401), "a ticket used again"


def test_auth_discord(world: World):
    user_id = world.discord_user_id()
    redirect_uri = "https://conformite.manette.test/discord"
    pair = manette.create_pkce_pair()
    first = world.discord_code(user_id, code_challenge=pair["code_challenge"], redirect_uri=redirect_uri)
    a = world.client()
    joueur = a.auth.login_with_discord(first, code_verifier=pair["code_verifier"], redirect_uri=redirect_uri)
    assert joueur["id"] and joueur["invite"] is False and a.auth.token and a.auth.player["id"] == joueur["id"], "a session is kept"
    assert a.table("notes").list() == []  # the token works
    again = manette.create_pkce_pair()
    second = world.discord_code(user_id, code_challenge=again["code_challenge"])
    assert world.client().auth.login_with_discord(second, code_verifier=again["code_verifier"])["id"] == joueur["id"], \
        "the same Discord user, the same player"
    with pytest.raises(manette.ManetteError) as err:
        world.client().auth.login_with_discord(first, code_verifier=pair["code_verifier"], redirect_uri=redirect_uri)
    assert (err.value.error, err.value.status) == ("invalid_credentials", 401), "a code used again"
    guest = world.client()
    g = guest.auth.guest(appareil_id=False)
    other = manette.create_pkce_pair()
    code = world.discord_code(world.discord_user_id(), code_challenge=other["code_challenge"])
    linked = guest.auth.link(code=code, code_verifier=other["code_verifier"])
    assert (linked["id"], linked["invite"]) == (g["id"], False), "the guest linked, the same id"
    assert guest.auth.player["invite"] is False
    h = world.client()
    h.auth.guest(appareil_id=False)
    taken = manette.create_pkce_pair()
    of_user = world.discord_code(user_id, code_challenge=taken["code_challenge"])
    with pytest.raises(manette.ManetteError) as err:
        h.auth.link(code=of_user, code_verifier=taken["code_verifier"])
    assert (err.value.error, err.value.status) == ("identity_taken", 409), "linking a Discord account that is a player"
    assert h.auth.player["invite"] is True, "a refused link leaves the guest a guest"


# -- data ------------------------------------------------------------------------------------

def test_tables(world: World):
    c = world.player()
    notes = c.table("notes")
    row = notes.insert({"texte": "bonjour", "points": 3})
    assert row["donnees"] == {"texte": "bonjour", "points": 3} and row["joueur_id"] == c.auth.player["id"]
    assert notes.get(row["id"])["donnees"]["texte"] == "bonjour"
    assert [r["id"] for r in notes.list()] == [row["id"]]
    updated = notes.update(row["id"], {"points": 7})
    assert updated["donnees"] == {"texte": "bonjour", "points": 7}
    assert notes.get(row["id"])["donnees"]["points"] == 7
    notes.remove(row["id"])
    with pytest.raises(manette.ManetteError) as err:
        notes.get(row["id"])
    assert err.value.error == "row_not_found" and err.value.status == 404
    assert notes.list() == []


def test_files(world: World):
    c = world.player()
    text = "score: 12\nnom: « Zoé »\n"
    f = c.files.upload("sauvegarde.txt", text, "text/plain")
    assert f["nom"] == "sauvegarde.txt"
    assert [x["nom"] for x in c.files.list()] == ["sauvegarde.txt"]
    got = c.files.get("sauvegarde.txt")
    assert got["contenu"] == text and got["fichier"]["nom"] == "sauvegarde.txt"
    c.files.remove("sauvegarde.txt")
    assert c.files.list() == []
    with pytest.raises(manette.ManetteError) as err:
        c.files.get("sauvegarde.txt")
    assert err.value.error == "file_not_found"


def test_leaderboards(world: World):
    c = world.player()
    boards = c.leaderboards()
    assert "meilleur-score" in [b["id"] for b in boards]
    res = c.leaderboard("meilleur-score").submit(4242)
    assert res["valeur"] == 4242 and res["rang"] >= 1
    me = c.auth.player["id"]
    mine = [s for s in c.leaderboard("meilleur-score").scores(autour="moi") if s["joueur_id"] == me]
    assert len(mine) == 1 and mine[0]["valeur"] == 4242
    top = c.leaderboard("meilleur-score").scores(limit=100)
    assert any(s["joueur_id"] == me and s["valeur"] == 4242 for s in top)


def test_economy(world: World):
    c = world.player()
    gold = lambda: next(s for s in c.economy.wallet() if s["code"] == "or")  # noqa: E731
    assert gold()["solde"] == 100
    assert c.economy.inventory() == []
    key = manette.http.random_id()
    first = c.economy.buy("potion", idempotency_key=key)
    assert first["achat"]["quantite"] == 1
    assert next(s for s in first["portefeuille"] if s["code"] == "or")["solde"] == 70
    assert gold()["solde"] == 70
    inv = c.economy.inventory()
    assert [(o["code"], o["quantite"]) for o in inv] == [("potion", 1)]
    # The same key again: the first answer, nothing more bought.
    replay = c.economy.buy("potion", idempotency_key=key)
    assert replay == first
    assert gold()["solde"] == 70
    assert [(o["code"], o["quantite"]) for o in c.economy.inventory()] == [("potion", 1)]
    # Without a key given, the SDK makes one per call: a second purchase buys again.
    c.economy.buy("potion")
    assert gold()["solde"] == 40
    assert c.economy.use("potion", 2) == []


def test_matchmaking(world: World):
    a, b = world.player(), world.player()
    joined = a.matchmaking.join("1v1", 1200)
    assert joined["status"] == "waiting" and joined["position"] >= 1
    assert a.matchmaking.status()["status"] == "waiting"
    assert a.matchmaking.leave()["status"] == "idle"
    assert a.matchmaking.status()["status"] == "idle"
    assert a.matchmaking.join("1v1")["status"] == "waiting"
    matched = b.matchmaking.join("1v1")
    assert matched["status"] == "matched" and matched["partie_id"]
    assert {p["joueur_id"] for p in matched["participants"]} == {a.auth.player["id"], b.auth.player["id"]}
    seen = a.matchmaking.wait_for_match(timeout_s=10)
    assert seen["status"] == "matched" and seen["partie_id"] == matched["partie_id"]


# -- realtime --------------------------------------------------------------------------------

def test_realtime_config(world: World):
    c = world.player()
    cfg = c.realtime.config()
    for k in ("url", "key", "channel_prefix", "token", "token_expire_le"):
        assert k in cfg, k
    assert cfg["private"] is True and cfg["channel_prefix"] and cfg["token"]
    exp = datetime.fromisoformat(cfg["token_expire_le"].replace("Z", "+00:00"))
    assert exp > datetime.now(timezone.utc)
    assert "evenements" not in cfg
    other = world.player(key="etat_aux_autres").realtime.config()
    assert other["evenements"] == "etat_aux_autres"


def test_realtime_room(world: World):
    x, o, pid = world.matched()
    rec, sub = follow(x, pid, "x")
    assert sub.joins == 1
    cfg = x.realtime.config()
    assert sub.topic == cfg["channel_prefix"] + pid and cfg["private"] is True
    first = rec.wait_turn(1, 10)  # the join's re-read
    assert first["id"] == pid
    stranger = world.player()
    with pytest.raises(manette.ManetteError) as err:
        stranger.match(pid).subscribe(on_etat=lambda p: None)
    assert err.value.error == "realtime_refused" and err.value.status == 0 and err.value.message
    sub.close()


def _whole_match(world: World, key: str) -> None:
    x, o, pid = world.matched(key=key)
    rx, sx = follow(x, pid, "x")
    ro, so = follow(o, pid, "o")
    for c, s in ((x, sx), (o, so)):
        if key == "etat_aux_autres":  # each hears the other on its own channel, not the room
            assert s.own_channel and s.topic == f"manette_joueur_{c.auth.player['id']}"
        else:
            assert not s.own_channel and s.topic.endswith(pid)
    players, recs = {"x": x, "o": o}, {"x": rx, "o": ro}
    play(players, recs, pid, range(5))
    assert_final(players, recs, pid)
    assert_history(x, pid)
    for who in ("x", "o"):
        r = recs[who]
        r.wait(lambda r: len(r.actions) >= 5, 10, "the 5 actions")
        assert sorted(a["numero_tour"] for a in r.actions) == [1, 2, 3, 4, 5], r.actions
        assert [a["donnees"]["case"] for a in sorted(r.actions, key=lambda a: a["numero_tour"])] == [c for _, c in SCRIPT]
        turns = [e["numero_tour"] for e in r.etats]
        assert turns == sorted(turns), "states never go backwards"
        assert "action" not in r.etats[-1]
    ids = {"x": x.auth.player["id"], "o": o.auth.player["id"]}
    # Each saw the other's moves as events (not re-reads only).
    assert {a["joueur_id"] for a in rx.actions} == set(ids.values())
    assert {a["joueur_id"] for a in ro.actions} == set(ids.values())
    sx.close()
    so.close()


def test_match_play(world: World):
    _whole_match(world, "default")


def test_match_play_etat_aux_autres(world: World):
    _whole_match(world, "etat_aux_autres")


def test_match_turn_timeout(world: World):
    x, o, pid = world.matched("chrono")
    rx, sx = follow(x, pid, "x", poll_s=2)
    ro, so = follow(o, pid, "o", poll_s=2)
    start = rx.wait_turn(1, 10)
    assert start["tour_expire_le"] is not None
    # Nobody acts: the server's sweep plays delai_depasse (sur_delai abandon): O wins.
    for r in (rx, ro):
        final = r.wait_final(30)
        assert final["statut"] == "terminee" and final["gagnant_id"] == o.auth.player["id"], final
    assert rx.latest == ro.latest == x.match(pid).state()
    sx.close()
    so.close()


# -- recovery --------------------------------------------------------------------------------

def test_recovery_realtime_restart(world: World):
    control = world.control
    x, o, pid = world.matched()
    rx, sx = follow(x, pid, "x")
    ro, so = follow(o, pid, "o")
    players, recs = {"x": x, "o": o}, {"x": rx, "o": ro}
    play(players, recs, pid, range(2))
    rx.wait_turn(3)
    ro.wait_turn(3)
    control.post("/realtime/stop")
    try:
        play(players, recs, pid, [2])  # X's move, committed while Realtime is down: never delivered
        # While it is down, X learns its own move by re-reading (its etat is 2 s late).
        rx.wait_turn(4, 15)
        time.sleep(2)  # a few reconnection attempts fail meanwhile
    finally:
        control.post("/realtime/start")
    deadline = time.monotonic() + 40
    while (sx.joins < 2 or so.joins < 2) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sx.joins >= 2 and so.joins >= 2, f"rejoins: x {sx.joins}, o {so.joins}"
    play(players, recs, pid, range(3, 5))
    assert_final(players, recs, pid)
    assert_history(x, pid)
    sx.close()
    so.close()


def test_recovery_dropped_etat(world: World):
    control = world.control
    x, o, pid = world.matched()
    rx, sx = follow(x, pid, "x")
    ro, so = follow(o, pid, "o")
    players, recs = {"x": x, "o": o}, {"x": rx, "o": ro}
    play(players, recs, pid, range(2))
    rx.wait_turn(3)
    ro.wait_turn(3)
    before = control.get("/realtime/dropped")["dropped"]
    control.post("/realtime/drop", {"event": "etat", "count": 1, "topic": f"manette_partie_{pid}"})
    play(players, recs, pid, [2])  # its etat is dropped for everyone
    rx.wait_turn(4)
    ro.wait_turn(4)
    assert control.get("/realtime/dropped")["dropped"] >= before + 1
    assert sx.rereads >= 2 and so.rereads >= 2  # the join's, then the recovery's
    play(players, recs, pid, range(3, 5))
    assert_final(players, recs, pid)
    sx.close()
    so.close()


def test_token_renewal(world: World):
    ttl = world.control.config["tokenTtlS"]
    x, o, pid = world.matched()
    # No silence re-read during the test: what arrives after the wait came over Realtime.
    rx, sx = follow(x, pid, "x", poll_s=3600)
    ro, so = follow(o, pid, "o", poll_s=3600)
    matched = Recorder("x's channel")
    chan = x.realtime.subscribe_player({"matched": matched.on_etat})
    rx.wait_turn(1, 10)
    ro.wait_turn(1, 10)
    time.sleep(2 * ttl + 5)
    assert x.realtime.renewals >= 2 and o.realtime.renewals >= 2, (x.realtime.renewals, o.realtime.renewals)
    players, recs = {"x": x, "o": o}, {"x": rx, "o": ro}
    play(players, recs, pid, range(5))
    assert_final(players, recs, pid)
    for r in (rx, ro):
        r.wait(lambda r: len(r.actions) == 5, 10, "the 5 actions over Realtime")
    assert sx.joins == 1 and so.joins == 1 and sx.rereads == 1 and so.rereads == 1, "events, not rejoins or re-reads"
    # The player channel too: a new match announced by `matched`.
    x.matchmaking.join("1v1")
    again = o.matchmaking.join("1v1")
    assert again["status"] == "matched"
    matched.wait(lambda r: any(e.get("partie_id") == again["partie_id"] for e in r.etats), 10, "matched on the player channel")
    chan.close()
    sx.close()
    so.close()


# -- errors ----------------------------------------------------------------------------------

def test_errors(world: World):
    p = world.pseudo()
    world.client().auth.register(p, f"{p}@example.test", "mot-de-passe-1")
    for lang, text in (("en", "Wrong login or password."), ("fr", "Identifiant ou mot de passe incorrect.")):
        with pytest.raises(manette.ManetteError) as err:
            world.client(lang=lang).auth.login(p, "pas-le-bon")
        e = err.value
        assert isinstance(e, Exception)
        assert (e.error, e.status, e.message) == ("invalid_credentials", 401, text)
    with pytest.raises(manette.ManetteError) as err:
        world.client(lang="en").auth.register(world.pseudo(), "a@example.test", "court")
    assert err.value.error == "validation_failed" and err.value.status == 400
    assert any(d["champ"] == "password" for d in err.value.details)
    x, o, pid = world.matched()
    with pytest.raises(manette.ManetteError) as err:
        o.match(pid).act("jouer", {"case": 4})  # X plays first
    e = err.value
    assert e.error == "action_refusee" and e.status == 409 and isinstance(e.reason, str) and e.reason and e.message
    with pytest.raises(manette.ManetteError) as err:
        x.match(pid).act("jouer", {"case": 0}, numero_tour=5)
    assert err.value.error == "action_refusee" and err.value.reason == "tour_perime"
