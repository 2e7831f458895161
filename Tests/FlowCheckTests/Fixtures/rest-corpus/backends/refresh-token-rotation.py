#!/usr/bin/env python3
"""Auth API for refresh-token-rotation.md: access + refresh tokens, the refresh token rotates.

--broken: a refresh issues a new pair but leaves the refresh token it was made with valid (no
rotation in effect). Step 6 ("The first refresh token is refused") must then fail.

  POST /api/login {"username", "password"} -> 200 {"access_token", "refresh_token", "token_type", "expires_in"}
  POST /api/token/refresh {"refresh_token"} -> 200 a new pair; the presented token is spent
       unknown or spent -> 400 invalid_grant; presenting a spent token also revokes every token
       of its family (reuse detection, OAuth 2.0 Security BCP)
  GET  /api/workouts (Bearer access_token) -> 200 {"owner", "workouts"} or 401

One user exists: grace / Compiler-A-0-1952 (the spec's variables).
"""

import sys

sys.dont_write_bytecode = True

import hmac
import threading
import time

from flask import jsonify

from common import bearer_token, error, json_body, new_app, new_token, serve

USERS = {"grace": "Compiler-A-0-1952"}
ACCESS_SECONDS = 15 * 60


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    access_tokens = {}  # token -> {"username", "family", "expires"}
    refresh_tokens = {}  # token -> {"username", "family", "spent"}
    revoked_families = set()

    def issue(username, family):
        """A new access/refresh pair in `family`. Call with the lock held."""
        access, refresh = new_token(), new_token()
        access_tokens[access] = {"username": username, "family": family, "expires": time.time() + ACCESS_SECONDS}
        refresh_tokens[refresh] = {"username": username, "family": family, "spent": False}
        return {"access_token": access, "refresh_token": refresh, "token_type": "Bearer", "expires_in": ACCESS_SECONDS}

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
        with lock:
            pair = issue(username, family=new_token())
        return jsonify(pair), 200

    @app.post("/api/token/refresh")
    def refresh():
        body = json_body()
        presented = body.get("refresh_token") if body else None
        if not isinstance(presented, str) or not presented:
            return error(400, "invalid_request")
        with lock:
            record = refresh_tokens.get(presented)
            if record is None or record["family"] in revoked_families:
                return error(400, "invalid_grant")
            if record["spent"]:
                revoked_families.add(record["family"])  # reuse: someone else holds a copy
                return error(400, "invalid_grant")
            if not broken:
                record["spent"] = True
            pair = issue(record["username"], record["family"])
        return jsonify(pair), 200

    @app.get("/api/workouts")
    def workouts():
        with lock:
            record = access_tokens.get(bearer_token() or "")
            valid = record is not None and record["expires"] > time.time() and record["family"] not in revoked_families
        if not valid:
            return error(401, "unauthorized")
        return jsonify({"owner": record["username"], "workouts": [{"date": "2025-03-01", "km": 5.2}]}), 200

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Auth API for refresh-token-rotation.md"))
