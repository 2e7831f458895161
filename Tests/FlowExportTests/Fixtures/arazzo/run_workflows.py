#!/usr/bin/env python3
"""Runs every workflow of an exported Arazzo document with arazzo-runner (PyPI) against the
embedded mock backend, `flowspec mock --backend SPEC...` on ephemeral ports, and prints what ran
as JSON: per workflow, the runner's final status and each step it executed with its verdict.

Usage: run_workflows.py FLOWSPEC ARAZZO_FILE [--inputs JSON] SPEC...
  --inputs '{"WORKFLOW": {"name": value}}' replaces input values (a wrong password, to take a branch).

The workflows are run unchanged. Two things are done around them, each reported in the output:

- Provider inputs. A workflow whose `provider` input is required starts after steps an Arazzo
  runner cannot take (the person signs in at the identity provider). This script plays that
  person once: it opens the mock provider's authorize endpoint (no redirect followed) with the
  flow's client_id and redirect_uri, a fresh state and nonce, and passes what the provider hands
  out (code, id_token, nonce, and the email and sub claims of the ID token) as `provider`.
- `$response.header.NAME`. Arazzo 1.0.1 (section "Runtime Expressions") defines it; arazzo-runner
  0.9.6 resolves `$response.` against its own response dict, whose key is `headers`, so the
  expression is always empty there and a header criterion always fails. The script adds exactly
  that lookup (case-insensitive, as HTTP header names are) and lists every use under "header_lookups".
"""
import base64
import json
import os
import secrets
import signal
import subprocess
import sys
import urllib.parse

import requests
from arazzo_runner import ArazzoRunner
from arazzo_runner.evaluator import ExpressionEvaluator
from arazzo_runner.models import RuntimeParams

HEADER_LOOKUPS = []
_original_evaluate = ExpressionEvaluator.evaluate_expression


def _evaluate(expression, state, source_descriptions=None, additional_context=None):
    prefix = "$response.header."
    if isinstance(expression, str) and expression.startswith(prefix) and additional_context:
        response = additional_context.get("response") or {}
        name = expression[len(prefix):].lower()
        for key, value in (response.get("headers") or {}).items():
            if key.lower() == name:
                HEADER_LOOKUPS.append({"expression": expression, "found": True})
                return value
        HEADER_LOOKUPS.append({"expression": expression, "found": False})
        return None
    return _original_evaluate(expression, state, source_descriptions, additional_context)


ExpressionEvaluator.evaluate_expression = staticmethod(_evaluate)


def unblock_signals():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])


def start_mock(flowspec, specs):
    process = subprocess.Popen(
        [flowspec, "mock", "--backend", "--quiet", *specs],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=unblock_signals)
    urls = {}
    for line in process.stdout:
        text = line.strip()
        if text.startswith("mock backend"):
            urls["backend"] = text.rsplit(" ", 1)[-1]
        elif text.startswith("authorize:"):
            urls.setdefault("authorize", text.split(" ", 1)[1].strip())
        elif text.startswith("Ctrl-C stops"):
            return process, urls
        elif text.startswith("error"):
            break
    process.kill()
    raise SystemExit("flowspec mock did not start: " + json.dumps(urls))


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def sign_in(authorize, inputs):
    """What the person does at the provider: sign in and consent; returns the provider values."""
    nonce = secrets.token_hex(16)
    query = {"client_id": inputs["client_id"], "response_type": "code id_token", "state": secrets.token_hex(8), "nonce": nonce}
    if "redirect_uri" in inputs:
        query["redirect_uri"] = inputs["redirect_uri"]
    answer = requests.get(authorize, params=query, allow_redirects=False, timeout=10)
    handed = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["Location"]).query))
    token_claims = claims(handed["id_token"])
    return {"code": handed["code"], "id_token": handed["id_token"], "nonce": nonce,
            "email": token_claims.get("email"), "sub": token_claims.get("sub")}


def run(document_path, urls, overrides):
    with open(document_path) as handle:
        text = handle.read()
    document = json.loads(text) if document_path.endswith(".json") else __import__("yaml").safe_load(text)
    results = {}
    for workflow in document["workflows"]:
        schema = workflow.get("inputs") or {}
        inputs = {name: spec["default"] for name, spec in (schema.get("properties") or {}).items() if "default" in spec}
        inputs.update(overrides.get(workflow["workflowId"], {}))
        provided = []
        if "provider" in (schema.get("required") or []):
            values = sign_in(urls["authorize"], inputs)
            wanted = schema["properties"]["provider"].get("required", [])
            inputs["provider"] = {name: values[name] for name in wanted}
            provided = sorted(wanted)
        runner = ArazzoRunner.from_arazzo_path(document_path)
        ran = []
        runner.register_callback("step_complete", lambda step_id, success, **_: ran.append([step_id, "passed" if success else "failed"]))
        result = runner.execute_workflow(workflow["workflowId"], inputs, runtime_params=RuntimeParams(servers={"host": urllib.parse.urlsplit(urls["backend"]).netloc}))
        results[workflow["workflowId"]] = {
            "status": str(getattr(result.status, "value", result.status)),
            "steps": ran,
            "provider_inputs": provided,
            "outputs": sorted((result.outputs or {}).keys()),
            "error": result.error,
        }
    return results


def main():
    flowspec, document_path, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    overrides = {}
    if specs[:1] == ["--inputs"]:
        overrides, specs = json.loads(specs[1]), specs[2:]
    process, urls = start_mock(flowspec, specs)
    try:
        results = run(document_path, urls, overrides)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
    print(json.dumps({"workflows": results, "header_lookups": HEADER_LOOKUPS}, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
