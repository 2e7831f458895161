#!/usr/bin/env python3
"""Library API for crud-conflicts.md: shelves and books, ISBN unique per shelf, ETag/If-Match.

--broken: adding a book whose ISBN is already on the shelf creates a second book (201) instead
of answering 409 duplicate_isbn. Step 3 ("App adds the same book again") must then fail.

  POST   /api/shelves                     {"name"} -> 201 {"id", "name"}
  POST   /api/shelves/<shelf>/books       {"isbn", "title", "copies"} -> 201 + Location + ETag;
                                          422 invalid_isbn; 409 duplicate_isbn {"existing_id"}
  GET    /api/shelves/<shelf>/books/<id>  200 + ETag; 410 once deleted; 404 unknown
  PUT    /api/shelves/<shelf>/books/<id>  If-Match required (428); stale ETag 412 stale_version
  DELETE /api/shelves/<shelf>/books/<id>  204
"""

import sys

sys.dont_write_bytecode = True

import re
import threading

from flask import jsonify, request

from common import error, json_body, new_app, new_id, new_token, serve


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    shelves = {}  # shelf id -> {"name", "books": {book id -> book}, "deleted": set of book ids}

    def book_problem(body):
        if body is None:
            return error(400, "invalid_request", detail="body must be a JSON object")
        isbn = body.get("isbn")
        if not isinstance(isbn, str) or not re.fullmatch(r"\d{10}|\d{13}", isbn.replace("-", "")):
            return error(422, "invalid_isbn")
        if not isinstance(body.get("title"), str) or not body["title"].strip():
            return error(422, "invalid_title")
        copies = body.get("copies")
        if not isinstance(copies, int) or isinstance(copies, bool) or copies < 0:
            return error(422, "invalid_copies")
        return None

    def answer(book, status=200, headers=None):
        response = jsonify({k: book[k] for k in ("id", "isbn", "title", "copies")})
        response.status_code = status
        response.headers["ETag"] = book["etag"]
        for name, value in (headers or {}).items():
            response.headers[name] = value
        return response

    def find(shelf_id, book_id):
        """(book, None) or (None, error answer). Call with the lock held."""
        shelf = shelves.get(shelf_id)
        if shelf is None:
            return None, error(404, "unknown_shelf")
        if book_id in shelf["deleted"]:
            return None, error(410, "deleted")
        book = shelf["books"].get(book_id)
        if book is None:
            return None, error(404, "unknown_book")
        return book, None

    @app.post("/api/shelves")
    def create_shelf():
        body = json_body()
        name = body.get("name") if body else None
        if not isinstance(name, str) or not name.strip():
            return error(422, "invalid_name")
        shelf_id = new_id("shelf")
        with lock:
            shelves[shelf_id] = {"name": name, "books": {}, "deleted": set()}
        return jsonify({"id": shelf_id, "name": name}), 201

    @app.post("/api/shelves/<shelf_id>/books")
    def create_book(shelf_id):
        body = json_body()
        problem = book_problem(body)
        if problem:
            return problem
        with lock:
            shelf = shelves.get(shelf_id)
            if shelf is None:
                return error(404, "unknown_shelf")
            existing = next((b for b in shelf["books"].values() if b["isbn"] == body["isbn"]), None)
            if existing is not None and not broken:
                return error(409, "duplicate_isbn", existing_id=existing["id"])
            book = {
                "id": new_id("book"),
                "isbn": body["isbn"],
                "title": body["title"],
                "copies": body["copies"],
                "etag": '"%s"' % new_token()[:16],
            }
            shelf["books"][book["id"]] = book
        return answer(book, 201, {"Location": "/api/shelves/%s/books/%s" % (shelf_id, book["id"])})

    @app.get("/api/shelves/<shelf_id>/books/<book_id>")
    def read_book(shelf_id, book_id):
        with lock:
            book, problem = find(shelf_id, book_id)
            return problem or answer(book)

    @app.put("/api/shelves/<shelf_id>/books/<book_id>")
    def update_book(shelf_id, book_id):
        body = json_body()
        problem = book_problem(body)
        if problem:
            return problem
        if_match = request.headers.get("If-Match")
        if not if_match:
            return error(428, "if_match_required")
        with lock:
            book, problem = find(shelf_id, book_id)
            if problem:
                return problem
            if if_match != book["etag"]:
                return error(412, "stale_version")
            others = shelves[shelf_id]["books"].values()
            if any(b["isbn"] == body["isbn"] and b["id"] != book_id for b in others):
                return error(409, "duplicate_isbn")
            book.update(isbn=body["isbn"], title=body["title"], copies=body["copies"])
            book["etag"] = '"%s"' % new_token()[:16]
            return answer(book)

    @app.delete("/api/shelves/<shelf_id>/books/<book_id>")
    def delete_book(shelf_id, book_id):
        with lock:
            book, problem = find(shelf_id, book_id)
            if problem:
                return problem
            shelf = shelves[shelf_id]
            del shelf["books"][book_id]
            shelf["deleted"].add(book_id)
        return "", 204

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Library API for crud-conflicts.md"))
