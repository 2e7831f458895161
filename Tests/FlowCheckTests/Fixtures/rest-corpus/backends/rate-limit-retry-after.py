#!/usr/bin/env python3
"""Quotes API for rate-limit-retry-after.md: a per-key quota of request units, 429 + Retry-After.

--broken: a request over the quota is refused with 429 but without the Retry-After header. The
over-quota branch of step 3 ("App refreshes the watch list", the scenario whose step 3 takes
"The user added two symbols…") must then fail.

  POST /api/keys {"plan": "sandbox"} -> 201 {"key", "plan", "units_per_window": 5, "window_seconds": 60}
  GET  /api/quotes?symbols=A,B,C  (X-Api-Key) -> 200 {"quotes": [{"symbol", "price"}]}
       + X-RateLimit-Limit / X-RateLimit-Remaining; one unit per symbol
       -> 429 rate_limited + Retry-After (whole seconds until the window resets) when the request
          needs more units than remain; a refused request consumes nothing

The window opens at the key's first quota request and lasts 60 seconds.
"""

import sys

sys.dont_write_bytecode = True

import math
import threading
import time
import zlib

from flask import jsonify, request

from common import error, json_body, new_app, new_token, serve

PLANS = {"sandbox": 5}
WINDOW_SECONDS = 60


def price(symbol):
    """A stable made-up price per symbol."""
    return round(10 + (zlib.crc32(symbol.encode()) % 99000) / 100, 2)


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    keys = {}  # key -> {"plan", "limit", "window_start" (monotonic seconds or None), "used"}

    @app.post("/api/keys")
    def create_key():
        body = json_body() or {}
        plan = body.get("plan", "sandbox")
        if plan not in PLANS:
            return error(422, "unknown_plan")
        key = "qk_" + new_token()
        with lock:
            keys[key] = {"plan": plan, "limit": PLANS[plan], "window_start": None, "used": 0}
        return jsonify({"key": key, "plan": plan, "units_per_window": PLANS[plan], "window_seconds": WINDOW_SECONDS}), 201

    @app.get("/api/quotes")
    def quotes():
        symbols = [s.strip().upper() for s in request.args.get("symbols", "").split(",") if s.strip()]
        if not symbols:
            return error(400, "symbols_required")
        now = time.monotonic()
        with lock:
            record = keys.get(request.headers.get("X-Api-Key", ""))
            if record is None:
                return error(401, "unknown_key")
            if record["window_start"] is None or now - record["window_start"] >= WINDOW_SECONDS:
                record["window_start"], record["used"] = now, 0
            remaining = record["limit"] - record["used"]
            if len(symbols) > remaining:
                wait = max(1, math.ceil(record["window_start"] + WINDOW_SECONDS - now))
                response = jsonify({"error": "rate_limited", "units_needed": len(symbols), "units_left": remaining})
                response.status_code = 429
                if not broken:
                    response.headers["Retry-After"] = str(wait)
                return response
            record["used"] += len(symbols)
            remaining = record["limit"] - record["used"]
            limit = record["limit"]
        response = jsonify({"quotes": [{"symbol": s, "price": price(s)} for s in symbols]})
        response.headers["X-RateLimit-Limit"] = str(limit)
        response.headers["X-RateLimit-Remaining"] = str(remaining)
        return response

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Quotes API for rate-limit-retry-after.md"))
