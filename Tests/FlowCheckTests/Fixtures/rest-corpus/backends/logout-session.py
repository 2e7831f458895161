#!/usr/bin/env python3
"""Notes API for logout-session.md: server-side sessions, logout revokes the one it is called with.

--broken: POST /api/logout answers 204 but forgets to revoke the session, so the token keeps
working. Step 5 ("The phone's old token is refused") must then fail.

  POST /api/login {"username", "password"} -> 200 {"token"} (a new session each time) or 401
  GET  /api/notes (Bearer token) -> 200 {"owner", "notes": [...]} or 401
  POST /api/logout (Bearer token) -> 204 (that session only), 401 without a valid session

One user exists: ada / Analytical-Engine-1843 (the spec's variables).
"""

import sys

sys.dont_write_bytecode = True

import hmac
import threading

from flask import jsonify

from common import bearer_token, error, json_body, new_app, new_token, serve

USERS = {"ada": "Analytical-Engine-1843"}
NOTES = {"ada": [{"id": "note-1", "text": "Bernoulli numbers, table B"}]}


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    sessions = {}  # token -> username

    def current_user():
        with lock:
            return sessions.get(bearer_token() or "")

    @app.post("/api/login")
    def login():
        body = json_body()
        username = body.get("username") if body else None
        password = body.get("password") if body else None
        if not isinstance(username, str) or not isinstance(password, str):
            return error(400, "invalid_request")
        expected = USERS.get(username)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            return error(401, "invalid_credentials")
        token = new_token()
        with lock:
            sessions[token] = username
        return jsonify({"token": token}), 200

    @app.get("/api/notes")
    def notes():
        username = current_user()
        if username is None:
            return error(401, "unauthorized")
        return jsonify({"owner": username, "notes": NOTES.get(username, [])}), 200

    @app.post("/api/logout")
    def logout():
        token = bearer_token() or ""
        with lock:
            if token not in sessions:
                return error(401, "unauthorized")
            if not broken:
                del sessions[token]
        return "", 204

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Notes API for logout-session.md"))
