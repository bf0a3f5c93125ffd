#!/usr/bin/python3
"""Quick start: log in (or sign up), get matched in 1v1, play tic-tac-toe to the end (the
first free square each turn), then read the leaderboard. Run it twice, in two terminals,
with two pseudos (or once, and play the other side in the web demo):

    PYTHONPATH=sdk/python /usr/bin/python3 sdk/python/examples/quickstart.py \\
        http://localhost:3000 sk_live_... alice 'a long password'
"""
import sys
import time

import manette

url, key, pseudo, password = sys.argv[1:5]
client = manette.Client(url, key, lang="en", callbacks="poll")  # callbacks run in client.poll()

try:
    client.auth.login(pseudo, password)
except manette.ManetteError as e:
    if e.error != "invalid_credentials":
        raise
    client.auth.register(pseudo, f"{pseudo}@example.com", password)
me = client.auth.player["id"]
print("logged in as", client.auth.player["pseudo"])

status = client.matchmaking.join("1v1")
if status["status"] != "matched":
    print("waiting for an opponent…")
    status = client.matchmaking.wait_for_match()
match = client.match(status["partie_id"])
print("matched:", [p["pseudo"] for p in status["participants"]])

latest = {}
sub = match.subscribe(
    on_action=lambda a: print("move", a["numero_tour"], a["action"], a["donnees"]),
    on_etat=latest.update,  # the match's state, never older than the last one
)
played = 0
while latest.get("statut", "en_cours") == "en_cours":
    client.poll()
    if latest.get("tour_joueur") == me and latest["numero_tour"] > played:
        played = latest["numero_tour"]
        square = latest["etat_plateau"]["cases"].index(None)
        try:
            match.act("jouer", {"case": square}, numero_tour=played)
        except manette.ManetteError as e:
            print("refused:", e.error, e.reason, e.message)
    time.sleep(0.02)
client.poll()
sub.close()

winner = latest.get("gagnant_id")
print("result:", "draw" if winner is None else "won" if winner == me else "lost")
for board in client.leaderboards():
    top = client.leaderboard(board["id"]).scores(limit=5)
    print(f"{board['id']}:", ", ".join(f"#{s['rang']} {s['pseudo']} {s['valeur']}" for s in top) or "(no scores yet)")
client.close()
