"""Platform logins beyond the conformance cases, against the real conformance server:
linking with a Steam ticket, the ``steam`` provider of login_with_token, the typed errors
(identity_taken, fournisseur_inconnu, invalid_credentials), Discord's request and the PKCE pair."""
from __future__ import annotations

import base64
import hashlib

import pytest

import manette

from conftest import World
from test_conformance import steam_ticket


def new_steam_id() -> str:
    import secrets
    return "7656119" + f"{secrets.randbelow(10 ** 10):010d}"


def test_login_with_token_steam_goes_to_steams_endpoint(world: World):
    steam_id = new_steam_id()
    a = world.client().auth.login_with_token("steam", steam_ticket(steam_id))
    b = world.client().auth.login_with_steam(steam_ticket(steam_id))
    assert a["id"] == b["id"]


def test_a_guest_links_a_steam_ticket_and_a_taken_identity_is_refused(world: World):
    steam_id = new_steam_id()
    guest = world.client()
    g = guest.auth.guest(appareil_id=False)
    linked = guest.auth.link(fournisseur="steam", jeton=bytes.fromhex(steam_ticket(steam_id)))
    assert (linked["id"], linked["invite"]) == (g["id"], False)
    assert guest.auth.player["invite"] is False and guest.auth.token
    assert world.client().auth.login_with_steam(steam_ticket(steam_id))["id"] == g["id"]
    # That Steam account is a player now: another guest cannot take it.
    other = world.client(lang="en")
    other.auth.guest(appareil_id=False)
    with pytest.raises(manette.ManetteError) as err:
        other.auth.link(fournisseur="steam", jeton=steam_ticket(steam_id))
    assert (err.value.error, err.value.status) == ("identity_taken", 409)
    assert other.auth.player["invite"] is True, "the refused link leaves the guest as it was"


def test_identity_taken_for_an_identity_token(world: World):
    provider = world.control.config["tokenProvider"]
    sub = world.pseudo("sujet")
    world.client().auth.login_with_token(provider, world.identity_token(sub))
    guest = world.client()
    guest.auth.guest(appareil_id=False)
    with pytest.raises(manette.ManetteError) as err:
        guest.auth.link(fournisseur=provider, jeton=world.identity_token(sub))
    assert (err.value.error, err.value.status) == ("identity_taken", 409)


def test_typed_errors_of_the_logins(world: World):
    c = world.client(lang="en")
    with pytest.raises(manette.ManetteError) as err:
        c.auth.login_with_token("not-declared", world.identity_token("x"))
    assert (err.value.error, err.value.status) == ("fournisseur_inconnu", 400)
    assert "provider" in err.value.message  # in the client's language
    # A code Discord never gave (the conformance games declare Discord: auth_discord).
    pair = manette.create_pkce_pair()
    with pytest.raises(manette.ManetteError) as err:
        c.auth.login_with_discord("a-code", code_verifier=pair["code_verifier"], redirect_uri="https://jeu.example/discord")
    assert (err.value.error, err.value.status) == ("invalid_credentials", 401)
    with pytest.raises(manette.ManetteError) as err:
        c.auth.login_with_token(world.control.config["tokenProvider"], "not-a-jwt")
    assert (err.value.error, err.value.status) == ("invalid_credentials", 401)
    assert c.auth.player is None and c.auth.token is None


def test_create_pkce_pair():
    pair = manette.create_pkce_pair()
    v, ch = pair["code_verifier"], pair["code_challenge"]
    # RFC 7636: 43-128 characters of the unreserved set; the challenge is BASE64URL(SHA256(verifier)), no padding.
    assert 43 <= len(v) <= 128 and all(c.isalnum() or c in "-._~" for c in v)
    assert ch == base64.urlsafe_b64encode(hashlib.sha256(v.encode()).digest()).rstrip(b"=").decode()
    assert manette.create_pkce_pair()["code_verifier"] != v
