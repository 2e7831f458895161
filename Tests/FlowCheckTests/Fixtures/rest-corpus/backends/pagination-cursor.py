#!/usr/bin/env python3
"""Catalogue API for pagination-cursor.md: cursor pagination over a catalogue's products.

--broken: a page fetched with a cursor starts one product too late (the classic off-by-one when
the cursor stores "the last item seen" and the server adds one more). Step 3 ("App loads the
second page with the cursor") must then fail: its first item is Dinghy, not Compass.

  POST /api/catalogues {"name", "products": [names]} -> 201 {"id", "name", "product_count"}
  GET  /api/catalogues/<id>/products?limit=N[&cursor=C]
       -> 200 {"items": [{"position", "name"}], "next_cursor": string or null}
       -> 400 invalid_cursor (unknown cursor, or one from another catalogue), 400 invalid_limit

Cursors are opaque random strings remembered by the server (catalogue id + offset).
"""

import sys

sys.dont_write_bytecode = True

import threading

from flask import jsonify, request

from common import error, json_body, new_app, new_id, new_token, serve

MAX_LIMIT = 100


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    catalogues = {}  # id -> {"name", "products": [names]}
    cursors = {}  # cursor -> (catalogue id, offset of the first item of the next page)

    @app.post("/api/catalogues")
    def create_catalogue():
        body = json_body()
        if body is None:
            return error(400, "invalid_request")
        name, products = body.get("name"), body.get("products", [])
        if not isinstance(name, str) or not name.strip():
            return error(422, "invalid_name")
        if not isinstance(products, list) or not all(isinstance(p, str) and p for p in products):
            return error(422, "invalid_products")
        catalogue_id = new_id("cat")
        with lock:
            catalogues[catalogue_id] = {"name": name, "products": list(products)}
        return jsonify({"id": catalogue_id, "name": name, "product_count": len(products)}), 201

    @app.get("/api/catalogues/<catalogue_id>/products")
    def list_products(catalogue_id):
        try:
            limit = int(request.args.get("limit", "20"))
        except ValueError:
            return error(400, "invalid_limit")
        if not 1 <= limit <= MAX_LIMIT:
            return error(400, "invalid_limit")
        cursor = request.args.get("cursor")
        with lock:
            catalogue = catalogues.get(catalogue_id)
            if catalogue is None:
                return error(404, "unknown_catalogue")
            offset = 0
            if cursor is not None:
                owner, offset = cursors.get(cursor, (None, None))
                if owner != catalogue_id:
                    return error(400, "invalid_cursor")
                if broken:
                    offset += 1
            products = catalogue["products"]
            page = products[offset:offset + limit]
            next_cursor = None
            if offset + limit < len(products):
                next_cursor = new_token()
                cursors[next_cursor] = (catalogue_id, offset + limit)
        items = [{"position": offset + i + 1, "name": name} for i, name in enumerate(page)]
        return jsonify({"items": items, "next_cursor": next_cursor}), 200

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Catalogue API for pagination-cursor.md"))
