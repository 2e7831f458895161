#!/usr/bin/env python3
"""Orders API for webhook-delivery.md: stores, orders, signed webhooks and their delivery log.

--broken: the subscription's event filter is ignored, so order.created is delivered too (and
logged first). Step 5 ("App reads the subscription's delivery log") must then fail.

  POST /api/stores {"name"} -> 201 {"id", "name"}
  POST /api/stores/<store>/webhooks {"url", "events"} -> 201 {"id", "url", "events", "secret"}; 422 invalid_url
  POST /api/stores/<store>/orders {"items", "amount", "currency"} -> 201 {"id", "status": "pending"}  (order.created)
  POST /api/stores/<store>/orders/<order>/pay -> 200 {"status": "paid"}  (order.paid); 409 when already paid
  GET  /api/stores/<store>/webhooks/<id>/deliveries -> 200 {"deliveries": [...]} oldest first

Each event that matches a subscription is logged (event, url, payload, signature, status
"pending") before the request that caused it returns, then POSTed to the URL by a background
worker (3 s timeout, no proxy); the log entry then says "delivered" with the receiver's status,
or "failed" with the error. Signature: ``t=<unix time>,v1=<hex HMAC-SHA256(secret, "t.body")>``.
"""

import sys

sys.dont_write_bytecode = True

import hashlib
import hmac
import json
import queue
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from flask import jsonify

from common import error, json_body, new_app, new_id, new_token, serve

EVENT_TYPES = {"order.created", "order.paid"}
DELIVERY_TIMEOUT = 3


def create_app(broken=False):
    app = new_app(__name__)
    lock = threading.Lock()
    stores = {}  # id -> {"name", "webhooks": {id -> webhook}, "orders": {id -> order}}
    outbox = queue.Queue()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def deliver_forever():
        while True:
            delivery, body = outbox.get()
            request = urllib.request.Request(
                delivery["url"], data=body, method="POST",
                headers={"Content-Type": "application/json", "Webhook-Signature": delivery["signature"]},
            )
            try:
                with opener.open(request, timeout=DELIVERY_TIMEOUT) as response:
                    outcome = {"status": "delivered", "response_status": response.status}
            except urllib.error.HTTPError as exc:
                outcome = {"status": "failed", "response_status": exc.code}
            except Exception as exc:  # refused, timeout, DNS: the receiver's problem, logged
                outcome = {"status": "failed", "error": type(exc).__name__}
            with lock:
                delivery.update(outcome, attempts=delivery["attempts"] + 1)

    threading.Thread(target=deliver_forever, name="webhook-deliveries", daemon=True).start()

    def emit(store, event_type, data):
        """Logs and queues one delivery per subscription that wants `event_type`. Lock held."""
        payload = {"id": new_id("evt"), "type": event_type, "created": int(time.time()), "data": data}
        body = json.dumps(payload, separators=(",", ":")).encode()
        for webhook in store["webhooks"].values():
            if event_type not in webhook["events"] and not broken:
                continue
            timestamp = str(int(time.time()))
            mac = hmac.new(webhook["secret"].encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
            delivery = {
                "id": new_id("dlv"),
                "event": event_type,
                "url": webhook["url"],
                "payload": payload,
                "signature": "t=%s,v1=%s" % (timestamp, mac),
                "status": "pending",
                "attempts": 0,
            }
            webhook["deliveries"].append(delivery)
            outbox.put((delivery, body))

    def order_view(order):
        return {k: order[k] for k in ("id", "items", "amount", "currency", "status")}

    @app.post("/api/stores")
    def create_store():
        body = json_body()
        name = body.get("name") if body else None
        if not isinstance(name, str) or not name.strip():
            return error(422, "invalid_name")
        store_id = new_id("store")
        with lock:
            stores[store_id] = {"name": name, "webhooks": {}, "orders": {}}
        return jsonify({"id": store_id, "name": name}), 201

    @app.post("/api/stores/<store_id>/webhooks")
    def subscribe(store_id):
        body = json_body()
        if body is None:
            return error(400, "invalid_request")
        url, events = body.get("url"), body.get("events")
        parsed = urllib.parse.urlsplit(url) if isinstance(url, str) else None
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.hostname:
            return error(422, "invalid_url")
        if not isinstance(events, list) or not events or not set(events) <= EVENT_TYPES:
            return error(422, "invalid_events")
        webhook = {"id": new_id("wh"), "url": url, "events": list(events), "secret": "whsec_" + new_token(), "deliveries": []}
        with lock:
            store = stores.get(store_id)
            if store is None:
                return error(404, "unknown_store")
            store["webhooks"][webhook["id"]] = webhook
        return jsonify({k: webhook[k] for k in ("id", "url", "events", "secret")}), 201

    @app.post("/api/stores/<store_id>/orders")
    def place_order(store_id):
        body = json_body()
        if body is None:
            return error(400, "invalid_request")
        amount, currency, items = body.get("amount"), body.get("currency"), body.get("items")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            return error(422, "invalid_amount")
        if not isinstance(currency, str) or len(currency) != 3 or not isinstance(items, list) or not items:
            return error(422, "invalid_order")
        order = {"id": new_id("ord"), "items": items, "amount": amount, "currency": currency, "status": "pending"}
        with lock:
            store = stores.get(store_id)
            if store is None:
                return error(404, "unknown_store")
            store["orders"][order["id"]] = order
            emit(store, "order.created", {"order_id": order["id"], "store_id": store_id, "amount": amount, "currency": currency})
        return jsonify(order_view(order)), 201

    @app.post("/api/stores/<store_id>/orders/<order_id>/pay")
    def pay(store_id, order_id):
        with lock:
            store = stores.get(store_id)
            order = store["orders"].get(order_id) if store else None
            if order is None:
                return error(404, "unknown_order")
            if order["status"] == "paid":
                return error(409, "already_paid")
            order["status"] = "paid"
            emit(store, "order.paid", {"order_id": order_id, "store_id": store_id, "amount": order["amount"], "currency": order["currency"]})
            return jsonify(order_view(order)), 200

    @app.get("/api/stores/<store_id>/webhooks/<webhook_id>/deliveries")
    def deliveries(store_id, webhook_id):
        with lock:
            store = stores.get(store_id)
            webhook = store["webhooks"].get(webhook_id) if store else None
            if webhook is None:
                return error(404, "unknown_webhook")
            return jsonify({"deliveries": [dict(d) for d in webhook["deliveries"]]}), 200

    return app


if __name__ == "__main__":
    sys.exit(serve(create_app, "Orders API for webhook-delivery.md"))
