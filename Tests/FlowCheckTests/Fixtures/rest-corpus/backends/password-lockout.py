#!/usr/bin/env python3
"""Accounts API for password-lockout.md: password sign-in, locked after 3 consecutive failures.

--broken: the lock is only checked for wrong passwords, so the right password still signs in
(200 with a token) while the account is locked. Step 5 ("Member now types the right password")
must then fail.

  POST /api/accounts {"password"} -> 201 {"username"} (the API picks the username)
  POST /api/login {"username", "password"}
       -> 200 {"token"}; wrong password -> 401 invalid_credentials {"attempts_left"};
          third consecutive failure and any attempt while locked -> 423 account_locked {"locked_until"}
  GET  /api/me (Bearer token) -> 200 {"username"} or 401

Passwords are stored as salted PBKDF2 hashes and compared in constant time.
"""

import sys

sys.dont_write_bytecode = True

import datetime
import hashlib
import hmac
import secrets
import threading
import time

from flask import jsonify

from common import bearer_token, error, json_body, new_app, new_token, serve

MAX_FAILURES = 3
LOCK_SECONDS = 15 * 60


def hash_password(password, salt):
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 10_000)


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    accounts = {}  # username -> {"salt", "hash", "failures", "locked_until" (epoch seconds or 0)}
    sessions = {}  # token -> username

    def locked_answer(account):
        until = datetime.datetime.fromtimestamp(account["locked_until"], datetime.timezone.utc)
        return error(423, "account_locked", locked_until=until.isoformat(timespec="seconds").replace("+00:00", "Z"))

    @app.post("/api/accounts")
    def sign_up():
        body = json_body()
        password = body.get("password") if body else None
        if not isinstance(password, str) or len(password) < 8:
            return error(422, "weak_password")
        username = "member-" + secrets.token_hex(6)
        salt = secrets.token_bytes(16)
        with lock:
            accounts[username] = {"salt": salt, "hash": hash_password(password, salt), "failures": 0, "locked_until": 0}
        return jsonify({"username": username}), 201

    @app.post("/api/login")
    def login():
        body = json_body()
        username = body.get("username") if body else None
        password = body.get("password") if body else None
        if not isinstance(username, str) or not isinstance(password, str):
            return error(400, "invalid_request")
        now = time.time()
        with lock:
            account = accounts.get(username)
            if account is None:
                return error(401, "invalid_credentials")
            right = hmac.compare_digest(hash_password(password, account["salt"]), account["hash"])
            is_locked = account["locked_until"] > now
            if is_locked and not (broken and right):
                return locked_answer(account)
            if not right:
                account["failures"] += 1
                if account["failures"] >= MAX_FAILURES:
                    account["failures"] = 0
                    account["locked_until"] = now + LOCK_SECONDS
                    return locked_answer(account)
                return error(401, "invalid_credentials", attempts_left=MAX_FAILURES - account["failures"])
            account["failures"] = 0
            token = new_token()
            sessions[token] = username
        return jsonify({"token": token}), 200

    @app.get("/api/me")
    def me():
        with lock:
            username = sessions.get(bearer_token() or "")
        if username is None:
            return error(401, "unauthorized")
        return jsonify({"username": username}), 200

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Accounts API for password-lockout.md"))
