#!/usr/bin/env python3
"""Shop API for shopping-cart.md: carts, a sandbox card charge, one check-out per cart.

--broken: checking out a cart that is already an order charges the card again and answers 200
with the order, instead of 409 already_checked_out. Step 4 ("App sends the check-out a second
time") must then fail.

  POST /api/carts {"currency"} -> 201 {"id", "status": "open", "items", "total"}
  POST /api/carts/<cart>/items {"sku", "quantity"} -> 201 the cart; 409 cart_closed once checked out
  POST /api/carts/<cart>/checkout {"payment_token"}
       -> 200 {"order_id", "status": "paid", "total"}; 402 payment_declined (cart stays open);
          409 already_checked_out {"order_id"} once the cart is an order
  GET  /api/orders/<order> -> 200 {"id", "status", "items", "total", "charges"}

Sandbox payments: the token tok_card_declined is declined, any other non-empty token is charged.
"""

import sys

sys.dont_write_bytecode = True

import threading

from flask import jsonify

from common import error, json_body, new_app, new_id, serve

PRICES = {"BOOK-42": 1990, "MUG-01": 850}  # cents
DECLINED = {"tok_card_declined"}


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    carts = {}  # id -> {"id", "currency", "items": [{"sku", "quantity", "unit_price"}], "status", "order_id"}
    orders = {}  # id -> {"id", "cart_id", "items", "total", "currency", "status", "charges"}

    def total(cart):
        return sum(item["quantity"] * item["unit_price"] for item in cart["items"])

    def cart_view(cart):
        return {"id": cart["id"], "status": cart["status"], "currency": cart["currency"], "items": cart["items"], "total": total(cart)}

    @app.post("/api/carts")
    def create_cart():
        body = json_body() or {}
        currency = body.get("currency", "EUR")
        if currency != "EUR":
            return error(422, "unsupported_currency")
        cart = {"id": new_id("cart"), "currency": currency, "items": [], "status": "open", "order_id": None}
        with lock:
            carts[cart["id"]] = cart
            return jsonify(cart_view(cart)), 201

    @app.post("/api/carts/<cart_id>/items")
    def add_item(cart_id):
        body = json_body()
        sku = body.get("sku") if body else None
        quantity = body.get("quantity") if body else None
        if sku not in PRICES:
            return error(422, "unknown_sku")
        if not isinstance(quantity, int) or isinstance(quantity, bool) or not 1 <= quantity <= 99:
            return error(422, "invalid_quantity")
        with lock:
            cart = carts.get(cart_id)
            if cart is None:
                return error(404, "unknown_cart")
            if cart["status"] != "open":
                return error(409, "cart_closed", order_id=cart["order_id"])
            line = next((item for item in cart["items"] if item["sku"] == sku), None)
            if line is None:
                cart["items"].append({"sku": sku, "quantity": quantity, "unit_price": PRICES[sku]})
            else:
                line["quantity"] += quantity
            return jsonify(cart_view(cart)), 201

    @app.post("/api/carts/<cart_id>/checkout")
    def checkout(cart_id):
        body = json_body()
        token = body.get("payment_token") if body else None
        if not isinstance(token, str) or not token:
            return error(400, "payment_token_required")
        with lock:
            cart = carts.get(cart_id)
            if cart is None:
                return error(404, "unknown_cart")
            if cart["status"] != "open":
                order = orders[cart["order_id"]]
                if not broken:
                    return error(409, "already_checked_out", order_id=order["id"])
                order["charges"] += 1
                return jsonify({"order_id": order["id"], "status": order["status"], "total": order["total"]}), 200
            if not cart["items"]:
                return error(422, "cart_empty")
            if token in DECLINED:
                return error(402, "payment_declined")
            order = {
                "id": new_id("ord"),
                "cart_id": cart_id,
                "items": [dict(item) for item in cart["items"]],
                "total": total(cart),
                "currency": cart["currency"],
                "status": "paid",
                "charges": 1,
            }
            orders[order["id"]] = order
            cart["status"], cart["order_id"] = "checked_out", order["id"]
            return jsonify({"order_id": order["id"], "status": "paid", "total": order["total"]}), 200

    @app.get("/api/orders/<order_id>")
    def read_order(order_id):
        with lock:
            order = orders.get(order_id)
            if order is None:
                return error(404, "unknown_order")
            return jsonify(dict(order)), 200

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Shop API for shopping-cart.md"))
