"""Plumbing shared by the rest-corpus backends: command line, JSON answers, start and stop.

Every backend in this directory is a small Flask app written from its spec alone. It is run as

    python3 backends/NAME.py [--port 0] [--broken]

binds 127.0.0.1 only, prints exactly one line ``listening on http://127.0.0.1:PORT`` to stdout,
serves until SIGTERM (or SIGINT), and keeps its state in memory behind one lock, so concurrent
requests are safe. ``--broken`` breaks the one behaviour named in the backend's own docstring.

The apps import this module, so each sets ``sys.dont_write_bytecode`` first: no ``__pycache__``
appears among the test fixtures.
"""

import argparse
import secrets
import signal
import sys

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException
from werkzeug.serving import make_server


def new_id(prefix):
    """An id nobody can guess, e.g. ``book_3f9c0a1b2c3d4e5f``."""
    return "%s_%s" % (prefix, secrets.token_hex(8))


def new_token():
    return secrets.token_urlsafe(32)


def error(status, code, **extra):
    """A JSON error answer: ``{"error": code, ...extra}`` with the given status."""
    body = {"error": code}
    body.update(extra)
    return jsonify(body), status


def json_body():
    """The request body when it is a JSON object, else None."""
    body = request.get_json(force=True, silent=True)
    return body if isinstance(body, dict) else None


def bearer_token():
    """The token of an ``Authorization: Bearer`` header, or None."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def new_app(name):
    """A Flask app whose own errors (unknown path, wrong method, bad input) are JSON too."""
    app = Flask(name)

    @app.errorhandler(HTTPException)
    def http_error(exc):
        return error(exc.code or 500, exc.name.lower().replace(" ", "_"))

    @app.errorhandler(Exception)
    def unexpected(exc):  # nothing a client sends should end in a 5xx
        return error(400, "invalid_request", detail=type(exc).__name__)

    return app


def serve(build_app, description, argv=None):
    """Parses ``--port``/``--broken``, builds the app and serves it until SIGTERM."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--broken", action="store_true", help="break the behaviour named in the module docstring")
    args = parser.parse_args(argv)

    app = build_app(broken=args.broken)
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
