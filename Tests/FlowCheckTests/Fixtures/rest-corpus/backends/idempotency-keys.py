#!/usr/bin/env python3
"""Payments API for idempotency-keys.md: POST /api/payments with an Idempotency-Key.

--broken: a retry with the same key and the same body charges again (a new payment, 201, no
Idempotent-Replayed header) instead of replaying the first answer. Step 3 ("Till App retries
after losing the answer") must then fail.

  POST /api/merchants {"name"} -> 201 {"id", "name", "api_key"}
  POST /api/payments  (Bearer api_key, Idempotency-Key) {"amount", "currency", "reference"}
       new key -> 201 payment; same key + same body -> the stored answer + Idempotent-Replayed: true;
       same key + other body -> 422 idempotency_key_reused; no key -> 400 idempotency_key_required
  GET  /api/payments  (Bearer api_key) -> 200 {"payments": [...]} in creation order

Keys are scoped to the merchant; the body is compared as parsed JSON (key order and spacing do
not matter).
"""

import sys

sys.dont_write_bytecode = True

import json
import threading

from flask import jsonify, request

from common import bearer_token, error, json_body, new_app, new_id, new_token, serve


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    merchants = {}  # api_key -> {"id", "name", "payments": [payment], "keys": {key -> (fingerprint, status, body)}}

    def merchant():
        token = bearer_token()
        return merchants.get(token) if token else None

    @app.post("/api/merchants")
    def create_merchant():
        body = json_body()
        name = body.get("name") if body else None
        if not isinstance(name, str) or not name.strip():
            return error(422, "invalid_name")
        record = {"id": new_id("mer"), "name": name, "api_key": "sk_test_" + new_token(), "payments": [], "keys": {}}
        with lock:
            merchants[record["api_key"]] = record
        return jsonify({k: record[k] for k in ("id", "name", "api_key")}), 201

    @app.post("/api/payments")
    def create_payment():
        body = json_body()
        key = request.headers.get("Idempotency-Key", "").strip()
        with lock:
            account = merchant()
            if account is None:
                return error(401, "unauthorized")
            if body is None:
                return error(400, "invalid_request")
            if not key:
                return error(400, "idempotency_key_required")
            fingerprint = json.dumps(body, sort_keys=True, separators=(",", ":"))
            seen = account["keys"].get(key)
            if seen is not None:
                seen_fingerprint, status, answer = seen
                if seen_fingerprint != fingerprint:
                    return error(422, "idempotency_key_reused")
                if not broken:
                    response = jsonify(answer)
                    response.status_code = status
                    response.headers["Idempotent-Replayed"] = "true"
                    return response
            amount, currency = body.get("amount"), body.get("currency")
            if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
                answer, status = {"error": "invalid_amount"}, 422
            elif not isinstance(currency, str) or len(currency) != 3:
                answer, status = {"error": "invalid_currency"}, 422
            else:
                answer = {
                    "id": new_id("pay"),
                    "amount": amount,
                    "currency": currency,
                    "reference": body.get("reference"),
                    "status": "succeeded",
                }
                status = 201
                account["payments"].append(answer)
            # Failures are remembered too: a retry gets the same verdict.
            account["keys"][key] = (fingerprint, status, answer)
        return jsonify(answer), status

    @app.get("/api/payments")
    def list_payments():
        with lock:
            account = merchant()
            if account is None:
                return error(401, "unauthorized")
            return jsonify({"payments": list(account["payments"])}), 200

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Payments API for idempotency-keys.md"))
