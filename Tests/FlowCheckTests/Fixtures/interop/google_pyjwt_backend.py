#!/usr/bin/env python3
"""An independent, "tutorial-grade" Google sign-in backend: Flask + PyJWT.

It verifies Google ID tokens the way popular PyJWT tutorials do, and nothing more:

  * on the first login, read the provider's discovery document and build ``jwt.PyJWKClient(jwks_uri)``;
  * POST /api/v1/auth/google/login {"code", "id_token", "nonce"} (a body that is not a JSON object
    holding the three as non-empty strings is refused first: ``login_request_problem``):
      1. exchange ``code`` at the token endpoint (client_secret_post, urllib);
      2. verify the posted id_token: ``jwks_client.get_signing_key_from_jwt(token)`` then
         ``jwt.decode(token, signing_key.key, algorithms=["RS256"], audience=CLIENT_ID,
         issuer=["https://accounts.google.com", "accounts.google.com"])``;
      3. require ``claims["nonce"] == nonce`` (missing or different: rejected);
      4. verify the exchanged id_token the same way (decode only) and require its ``sub`` to equal
         the posted token's ``sub`` (steps 2-4 are ``verify_login``);
      5. create a session for that ``sub`` and answer 200 {"session_token": ...}.
  * GET /api/v1/me with ``Authorization: Bearer <session_token>``: 200 {"sub", "email"} or 401.

On purpose there is no replay cache, no ``azp`` check, no ``at_hash`` check, no required-claims
list and no leeway: whatever PyJWT's defaults accept, this backend accepts. Validation failures
answer 401 JSON, a malformed request 400 JSON; nothing a client sends yields a 5xx.

Usage:
  python3 google_pyjwt_backend.py --provider-url URL --client-id ID --client-secret-env VAR \
      [--redirect-uri URI] [--port 0]

It binds 127.0.0.1 only, prints exactly one line ``listening on http://127.0.0.1:PORT`` to
stdout, and exits on SIGTERM. The client secret is read from the environment variable named by
--client-secret-env and is never printed or logged.
"""

import argparse
import hmac
import json
import os
import secrets
import signal
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

import jwt
from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException
from werkzeug.serving import make_server

GOOGLE_ISSUERS = ["https://accounts.google.com", "accounts.google.com"]
HTTP_TIMEOUT = 10


def issuer_list_supported():
    """Whether the installed PyJWT accepts a list for ``issuer`` (PyJWT >= 2.9).

    Older versions compare ``payload["iss"] != issuer`` and so reject every token when given a
    list; then the backend decodes without ``issuer`` and checks ``iss`` itself."""
    key = "issuer-probe-key-that-is-32-bytes!"
    probe = jwt.encode({"iss": GOOGLE_ISSUERS[1]}, key, algorithm="HS256")
    try:
        jwt.decode(probe, key, algorithms=["HS256"], issuer=GOOGLE_ISSUERS)
        return True
    except jwt.InvalidIssuerError:
        return False


ISSUER_LIST_SUPPORTED = issuer_list_supported()


def verify_google_id_token(token, jwks_client, client_id):
    """The whole ID-token verification: PyJWKClient key lookup + jwt.decode. Raises on failure.

    pyjwt_experiments.py imports this function, so the experiments run exactly this call."""
    signing_key = jwks_client.get_signing_key_from_jwt(token)
    if ISSUER_LIST_SUPPORTED:
        return jwt.decode(
            token,
            signing_key.key,
            algorithms=["RS256"],
            audience=client_id,
            issuer=GOOGLE_ISSUERS,
        )
    claims = jwt.decode(token, signing_key.key, algorithms=["RS256"], audience=client_id)
    if claims.get("iss") not in GOOGLE_ISSUERS:
        raise jwt.InvalidIssuerError("Invalid issuer")
    return claims


class LoginRefused(Exception):
    """A token check of the login failed; ``code`` is the error the login answers 401 with."""

    def __init__(self, code, description=None):
        super().__init__(code if description is None else "%s: %s" % (code, description))
        self.code = code
        self.description = description


def login_request_problem(body):
    """Why a login body is malformed (answered 400 invalid_request), or None when it is fine: it
    must be a JSON object whose code, id_token and nonce are non-empty strings.

    pyjwt_experiments.py drives login() through Flask's test client to observe this check."""
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    for name in ("code", "id_token", "nonce"):
        value = body.get(name)
        if not isinstance(value, str) or not value:
            return "%s must be a non-empty string" % name
    return None


def verify_login(id_token, nonce, exchanged_id_token, jwks_client, client_id):
    """The login's token checks: verify the posted id_token, compare its nonce claim with the
    posted nonce, verify the id_token the code exchange returned and compare the two ``sub``.
    Returns the posted token's claims; raises LoginRefused.

    pyjwt_experiments.py imports this function, so the experiments run exactly these checks."""
    try:
        claims = verify_google_id_token(id_token, jwks_client, client_id)
    except Exception as exc:  # PyJWTError, PyJWKClientError, key errors...
        raise LoginRefused("invalid_id_token", "%s: %s" % (type(exc).__name__, exc)) from None

    token_nonce = claims.get("nonce")
    if not isinstance(token_nonce, str) or not hmac.compare_digest(token_nonce.encode(), nonce.encode()):
        raise LoginRefused("invalid_nonce")

    try:
        exchanged_claims = verify_google_id_token(exchanged_id_token, jwks_client, client_id)
    except Exception as exc:
        raise LoginRefused("invalid_exchanged_id_token", "%s: %s" % (type(exc).__name__, exc)) from None
    if exchanged_claims.get("sub") != claims.get("sub"):
        raise LoginRefused("sub_mismatch")
    return claims


class ExchangeFailed(Exception):
    """The token endpoint refused the code (any non-200 answer or an unusable body)."""


class ProviderUnreachable(Exception):
    """The token endpoint could not be reached at all."""


def _opener():
    # Loopback provider: never route through an HTTP proxy taken from the environment.
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def fetch_discovery(provider_url):
    url = provider_url.rstrip("/") + "/.well-known/openid-configuration"
    with _opener().open(urllib.request.Request(url), timeout=HTTP_TIMEOUT) as response:
        document = json.load(response)
    if not isinstance(document, dict):
        raise ValueError("the discovery document is not a JSON object")
    for field in ("jwks_uri", "token_endpoint"):
        if not isinstance(document.get(field), str):
            raise ValueError("the discovery document has no %s" % field)
    return document


def exchange_code(token_endpoint, code, client_id, client_secret, redirect_uri):
    fields = {
        "code": code,
        "client_id": client_id,
        "client_secret": client_secret,
        "grant_type": "authorization_code",
    }
    if redirect_uri is not None:
        fields["redirect_uri"] = redirect_uri
    body = urllib.parse.urlencode(fields).encode("ascii")
    req = urllib.request.Request(
        token_endpoint,
        data=body,
        method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
    )
    try:
        with _opener().open(req, timeout=HTTP_TIMEOUT) as response:
            status = response.status
            raw = response.read()
    except urllib.error.HTTPError as error:
        error.close()
        raise ExchangeFailed("token endpoint answered HTTP %d" % error.code) from None
    except (urllib.error.URLError, OSError) as error:
        raise ProviderUnreachable(str(error)) from None
    if status != 200:
        raise ExchangeFailed("token endpoint answered HTTP %d" % status)
    try:
        payload = json.loads(raw)
    except ValueError:
        raise ExchangeFailed("token endpoint answered non-JSON") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("id_token"), str):
        raise ExchangeFailed("token endpoint answered no id_token")
    return payload


class LazyProvider:
    """The discovery document and the PyJWKClient, read on first use (the checker starts the
    provider after the backend is listening), then kept for the life of the process."""

    def __init__(self, provider_url):
        self.provider_url = provider_url
        self.lock = threading.Lock()
        self.loaded = None

    def get(self):
        with self.lock:
            if self.loaded is None:
                discovery = fetch_discovery(self.provider_url)
                self.loaded = (discovery["token_endpoint"], jwt.PyJWKClient(discovery["jwks_uri"]))
            return self.loaded


def create_app(config):
    """config: dict with client_id, client_secret, redirect_uri, provider (a LazyProvider)."""
    app = Flask(__name__)
    sessions = {}
    sessions_lock = threading.Lock()

    def error(status, code, description=None):
        body = {"error": code}
        if description:
            body["error_description"] = description
        return jsonify(body), status

    @app.errorhandler(HTTPException)
    def http_error(exc):
        return error(exc.code or 400, exc.name.lower().replace(" ", "_"))

    @app.errorhandler(Exception)
    def unexpected(exc):  # never a 5xx for something a client sent
        return error(400, "invalid_request", type(exc).__name__)

    @app.post("/api/v1/auth/google/login")
    def login():
        try:
            body = request.get_json(force=True, silent=True)
        except RecursionError:  # absurdly deep nesting: not a JSON object we can read
            body = None
        problem = login_request_problem(body)
        if problem is not None:
            return error(400, "invalid_request", problem)
        code, id_token, nonce = body["code"], body["id_token"], body["nonce"]

        try:
            token_endpoint, jwks_client = config["provider"].get()
        except Exception:
            return error(502, "provider_unreachable")
        try:
            exchanged = exchange_code(
                token_endpoint, code, config["client_id"], config["client_secret"], config["redirect_uri"]
            )
        except ExchangeFailed as exc:
            return error(401, "code_exchange_failed", str(exc))
        except ProviderUnreachable:
            return error(502, "provider_unreachable")

        try:
            claims = verify_login(id_token, nonce, exchanged["id_token"], jwks_client, config["client_id"])
        except LoginRefused as refused:
            return error(401, refused.code, refused.description)

        session_token = secrets.token_urlsafe(32)
        with sessions_lock:
            sessions[session_token] = {"sub": claims.get("sub"), "email": claims.get("email")}
        return jsonify({"session_token": session_token}), 200

    @app.get("/api/v1/me")
    def me():
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return error(401, "unauthorized")
        with sessions_lock:
            session = sessions.get(token.strip())
        if session is None:
            return error(401, "unauthorized")
        return jsonify({"sub": session["sub"], "email": session["email"]}), 200

    return app


def main(argv=None):
    parser = argparse.ArgumentParser(description="Tutorial-grade Google sign-in backend (Flask + PyJWT).")
    parser.add_argument("--provider-url", required=True, help="base URL of the OpenID provider (discovery is read from it)")
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret-env", required=True, help="name of the environment variable holding the client secret")
    parser.add_argument("--redirect-uri", default=None, help="redirect_uri sent in the code exchange (omitted when not given)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    args = parser.parse_args(argv)

    client_secret = os.environ.get(args.client_secret_env)
    if not client_secret:
        print("google_pyjwt_backend: environment variable %s is not set" % args.client_secret_env, file=sys.stderr)
        return 2

    # PyJWKClient opens its own urllib connection, which honours *_proxy variables.
    loopback = "127.0.0.1,localhost,::1"
    for name in ("no_proxy", "NO_PROXY"):
        os.environ[name] = (os.environ[name] + "," + loopback) if os.environ.get(name) else loopback

    config = {
        "client_id": args.client_id,
        "client_secret": client_secret,
        "redirect_uri": args.redirect_uri,
        "provider": LazyProvider(args.provider_url),
    }
    app = create_app(config)
    server = make_server("127.0.0.1", args.port, app, threaded=True)

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A parent may start us with these blocked (the mask is inherited across exec).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    sys.stdout.write("listening on http://127.0.0.1:%d\n" % server.server_port)
    sys.stdout.flush()
    try:
        server.serve_forever()
    except SystemExit:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
