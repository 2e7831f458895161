#!/usr/bin/env python3
"""Writes the committed seed corpus, Fuzz/corpus/<target>/, from the repository's own inputs.

Deterministic and idempotent: run it again after adding flows or fixtures, then commit what
changed. Seeds are small on purpose (each fits the target's -max_len in scripts/fuzz.sh); the
hostile inputs of Tests/FlowParserTests/HostileInputTests.swift are rewritten here at sizes
that exercise the same paths. Needs Python 3 with `cryptography` (only for the JOSE seeds).

    python3 Fuzz/make-corpus.py
"""
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")
MAX_SPEC = 64 * 1024


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    assert len(data) <= MAX_SPEC, (target, name, len(data))
    path = os.path.join(CORPUS, target, name)
    with open(path, "wb") as f:
        f.write(data)


def copy_tree(target, pattern_dir, suffixes, prefix):
    for base, dirs, files in os.walk(os.path.join(ROOT, pattern_dir)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(suffixes):
                rel = os.path.relpath(os.path.join(base, name), os.path.join(ROOT, pattern_dir))
                with open(os.path.join(base, name), "rb") as f:
                    write(target, prefix + rel.replace("/", "__"), f.read())


# --- spec ---------------------------------------------------------------------------------

FRONT = "---\nid: x\ntitle: X\nactors:\n  a: { name: A, role: client }\n  b: { name: B, role: backend }\n---\n"


def hostile_specs():
    """HostileInputTests.corpus, smaller, plus the cases of issue 10."""
    crlf = (FRONT + "\n## Steps\n\n### 1. A\na → b\n").replace("\n", "\r\n")
    cases = {
        "empty": b"",
        "only-newline": b"\n",
        "only-bom": b"\xef\xbb\xbf",
        "nul-bytes": b"---\n\x00\x00",
        "invalid-utf8": b"---\nid: x\ntitle: \xc3\x28\xff\n---\n",
        "lone-surrogate": b"\xed\xa0\x80",
        "overlong": b"\xc0\xaf",
        "utf16le-bom": b"\xff\xfe" + "---\nid: x\n".encode("utf-16-le"),
        "utf16le": "---\nid: x\n".encode("utf-16-le"),
        "unterminated-front-matter": "---\nid: x\ntitle: y\n",
        "front-matter-only": FRONT,
        "crlf": crlf,
        "huge-step-number": FRONT + "### 99999999999999999999999. X\na → b\n",
        "zero-step": FRONT + "### 0. X\na → b\n",
        "negative-step": FRONT + "### -1. X\na → b\n",
        "arrow-soup": FRONT + "### 1. X\na → → b\n\n- → →\n- x → end:\n- y → end: \n- → 1\n",
        "unclosed-fences": FRONT + "### 1. X\na → b\n\n```http\nPOST /x\n",
        "empty-http-expect": FRONT + "### 1. X\na → b\n\n```http\n```\n\n```expect\n```\n",
        "expect-not-mapping": FRONT + "### 1. X\na → b\n\n```http\nGET /x\n```\n\n```expect\n- 1\n- 2\n```\n",
        "placeholder-soup": FRONT + "### 1. X\na → b\n\n```http\nGET /{{{{}}}}{{\n```\n",
        "token-table-no-rows": FRONT + "| Rule | Token |\n|---|---|\n",
        "token-table-ragged": FRONT + "| Rule | Token |\n|---|---|\n| a |\n| b | c @ | d | e |\n| | @999999999999 |\n",
        "yaml-aliases": "---\na: &a [1, 2]\nb: [*a, *a, *a]\nid: x\ntitle: x\nactors: *a\n---\n",
        "yaml-billion-laughs": "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                               "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                               "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nid: x\ntitle: *e\n---\n",
        "yaml-tabs": "---\n\tid: x\n---\n",
        "yaml-duplicate-keys": "---\nid: x\nid: y\n---\n",
        "yaml-non-string-keys": "---\n[1, 2]: x\n? {a: b}\n: c\n---\n",
        "yaml-binary-tag": "---\nid: !!binary aGVsbG8=\ntitle: !custom x\n---\n",
        "yaml-bad-lang": "---\nid: x\ntitle: X\nlang: 'en\" onload=alert(1)'\nactors:\n  a: { name: A, role: client }\n---\n",
        "control-characters": FRONT + "### 1. \x01\x07\x1b[31m red\x1b]8;;http://x\x07link\x1b]8;;\x07 \x1b]52;c;ZXZpbA==\x07\na → b\n",
        "bidi-and-combining": "---\nid: x\ntitle: \u202eevil\ntags: [\u202elive, \u2066x\u2069]\nactors:\n  a: { name: A, role: client }\n  b: { name: B, role: backend }\n---\n"
                              "### 1. \u202eevil\u0301\u0301\na → b\n",
        "xss-titles": "---\nid: x\ntitle: '<script>alert(1)</script>'\nsummary: '<img src=x onerror=alert(1)>'\nallow-raw-html: true\n"
                      "actors:\n  a: { name: '<b>A</b>', role: client }\n  b: { name: B, role: backend }\n---\n"
                      "### 1. <svg onload=alert(1)>\na → b\n\n- <i>x</i> → end: success\n",
        "nested-lists": FRONT + "\n".join("  " * i + "- x" for i in range(200)),
        "nested-quotes-32": FRONT + ">" * 32 + " x\n",
        "nested-quotes-33": FRONT + ">" * 33 + " x\n",
        "nested-quotes-spaced": FRONT + "> " * 40 + "x\n",
        "nested-brackets": FRONT + "[" * 10000 + "\n",
        "yaml-nested-flow": "---\nid: " + "[" * 10000 + "\n---\n",
        "yaml-nested-flow-64": "---\nid: " + "[" * 64 + "]" * 64 + "\n---\n",
        "yaml-nested-block": "---\n" + "\n".join(" " * i + "k%d:" % i for i in range(300)) + " v\n---\n",
        "emphasis-bomb": FRONT + "*a **a " * 2000 + "\n",
        "many-steps": FRONT + "## Steps\n" + "\n".join("### %d. S\na → b\n" % i for i in range(1, 501)),
        "wide-table-128": FRONT + "|" + "a|" * 128 + "\n|" + "-|" * 128 + "\n" + "|x|\n" * 20,
        "wide-table-129": FRONT + "|" + "a|" * 129 + "\n|" + "-|" * 129 + "\n|x|\n",
        "table-in-fence": FRONT + "```\n|" + "a|" * 200 + "\n|" + "-|" * 200 + "\n```\n",
        "table-after-tilde-fence": FRONT + "~~~ `x`\n~~~\n|a|b|\n|-|-|\n|1|2|\n",
    }
    return cases


def spec_seeds():
    copy_tree("spec", "flows", (".md",), "flows__")
    copy_tree("spec", "Tests/FlowCheckTests/Fixtures", (".md",), "fixtures__")
    for name, data in hostile_specs().items():
        write("spec", "hostile__" + name, data)
    test = open(os.path.join(ROOT, "Tests/FlowParserTests/HostileInputTests.swift"), encoding="utf-8").read()
    sample = re.search(r'let sampleSpec = """\n(.*?)\n"""', test, re.S)
    if sample:
        write("spec", "hostile__sample-spec", sample.group(1) + "\n")


# --- legacy --------------------------------------------------------------------------------

def legacy_seeds():
    shared = os.path.join(ROOT, "..", "shared", "seeds")
    if os.path.isdir(shared):
        for name in sorted(os.listdir(shared)):
            with open(os.path.join(shared, name), "rb") as f:
                write("legacy", "shared__" + name, f.read())
    copy_tree("legacy", "Tests/FlowLintTests/Fixtures", (".txt", ".md"), "fixtures__")
    write("legacy", "small-en", "```yaml\n Title: Login\n tags:\n  - domain:web\n```\n\n## Flow\n\n"
          "**Step 1:** User opens the app\n- If ok: go to step 2\n\n**Step 2:** App calls backend\n\n"
          "| Endpoint | Method |\n|---|---|\n| /login | POST |\n\n```mermaid\nsequenceDiagram\n"
          "participant U as User\nparticipant A as App\n%% Step 1\nU->>A: open\n%% Step 2\nA->>U: done\n```\n")
    write("legacy", "small-tr", "**Adım 1:** Kullanıcı\n- Eğer hata: adım 9\n**Adım 1:** tekrar\n")
    write("legacy", "empty", b"")
    write("legacy", "binary", b"\x89PNG\r\n\x1a\n\x00\x00")
    write("legacy", "wide-table", "**Step 1:** x\n\n|" + "a|" * 200 + "\n|" + "-|" * 200 + "\n|x|\n")


# --- JOSE ----------------------------------------------------------------------------------

def b64(data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64int(value):
    return b64(value.to_bytes((value.bit_length() + 7) // 8 or 1, "big"))


def vectors():
    """Key members and compact tokens from Tests/JOSETests/Vectors.swift (RFC 7515 App. A)."""
    text = open(os.path.join(ROOT, "Tests/JOSETests/Vectors.swift"), encoding="utf-8").read()
    payload = re.search(r'static let payloadSegment = "([^"]+)"', text).group(1)
    members = {}
    for key in ("a2Key", "a3Key", "rfc7638Key"):
        block = re.search(r"static let %s = JWK\((.*?)\)\n" % key, text, re.S).group(1)
        members[key] = dict(re.findall(r'(\w+): "([^"]*)"', block))
    a1 = re.search(r'static let a1Compact = "([^"]+)" \+ payloadSegment \+ "([^"]+)"', text)
    a2sig = re.search(r'static let a2Signature = "([^"]+)"', text).group(1)
    a3sig = re.search(r'static let a3Signature = "([^"]+)"', text).group(1)
    tokens = {
        "rfc7515-a1-hs256": a1.group(1) + payload + a1.group(2),
        "rfc7515-a2-rs256": "eyJhbGciOiJSUzI1NiJ9." + payload + "." + a2sig,
        "rfc7515-a3-es256": "eyJhbGciOiJFUzI1NiJ9." + payload + "." + a3sig,
        "rfc7515-a5-none": "eyJhbGciOiJub25lIn0." + payload + ".",
    }
    return members, tokens


def jose_seeds():
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    members, tokens = vectors()
    for name, token in tokens.items():
        write("jws", name, token)

    # Fixed test keys (the RFC ones), so the seeds are the same on every run.
    a2 = members["a2Key"]
    def num(s):
        return int.from_bytes(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)), "big")
    n, e, d = num(a2["n"]), num(a2["e"]), num(a2["d"])
    p, q = num(a2["p"]), num(a2["q"])
    rsa_key = rsa.RSAPrivateNumbers(p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p),
                                    rsa.RSAPublicNumbers(e, n)).private_key()
    a3 = members["a3Key"]
    ec_key = ec.derive_private_key(num(a3["d"]), ec.SECP256R1())

    claims = {"iss": "https://appleid.apple.com", "aud": "com.example.app", "sub": "001234.abcdef",
              "iat": 1700000000, "exp": 1900000000, "nonce": "n-0S6_WzA2Mj", "email": "a@example.com",
              "email_verified": "true", "is_private_email": False, "auth_time": 1700000000,
              "nonce_supported": True}

    def signed(header, payload, alg):
        h = header if isinstance(header, bytes) else json.dumps(header, separators=(",", ":")).encode()
        pl = payload if isinstance(payload, bytes) else json.dumps(payload, separators=(",", ":")).encode()
        signing_input = (b64(h) + "." + b64(pl)).encode()
        if alg == "RS256":
            sig = rsa_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        elif alg == "PS256":
            sig = rsa_key.sign(signing_input, padding.PSS(padding.MGF1(hashes.SHA256()), 32), hashes.SHA256())
        elif alg == "ES256":
            r, s = decode_dss_signature(ec_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
            sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        elif alg == "HS256":
            sig = hmac.new(b"secret", signing_input, hashlib.sha256).digest()
        else:
            sig = b""
        return signing_input.decode() + "." + b64(sig)

    # kids fuzz-rsa / fuzz-ec / fuzz-hmac are the keys Targets/jws/main.swift holds.
    write("jws", "rs256-fuzz-rsa", signed({"alg": "RS256", "kid": "fuzz-rsa", "typ": "JWT"}, claims, "RS256"))
    write("jws", "ps256", signed({"alg": "PS256", "kid": "fuzz-rsa"}, claims, "PS256"))
    write("jws", "es256-fuzz-ec", signed({"alg": "ES256", "kid": "fuzz-ec"}, claims, "ES256"))
    write("jws", "hs256-fuzz-hmac-valid", signed({"alg": "HS256", "kid": "fuzz-hmac"}, claims, "HS256"))
    write("jws", "hs256-crit", signed({"alg": "HS256", "kid": "fuzz-hmac", "crit": ["b64"], "b64": True}, claims, "HS256"))
    write("jws", "hs256-crit-registered", signed({"alg": "HS256", "kid": "fuzz-hmac", "crit": ["alg", "x"]}, claims, "HS256"))
    write("jws", "embedded-jwk", signed({"alg": "RS256", "kid": "fuzz-rsa", "jwk": {"kty": "RSA", "n": a2["n"], "e": "AQAB"}}, claims, "RS256"))
    write("jws", "none-alg-kid", signed({"alg": "none", "kid": "fuzz-rsa"}, claims, "none"))
    write("jws", "duplicate-header", signed(b'{"alg":"HS256","kid":"fuzz-hmac","alg":"none"}', claims, "HS256"))
    write("jws", "duplicate-claims", signed({"alg": "HS256", "kid": "fuzz-hmac"}, b'{"sub":"a","sub":"b","exp":1}', "HS256"))
    write("jws", "payload-not-object", signed({"alg": "HS256", "kid": "fuzz-hmac"}, b"[1,2,3]", "HS256"))
    write("jws", "payload-not-json", signed({"alg": "HS256", "kid": "fuzz-hmac"}, b"\xff\xfe hello", "HS256"))
    padded = signed({"alg": "HS256", "kid": "fuzz-hmac"}, {"sub": "x"}, "HS256").split(".")
    write("jws", "padded-segments", ".".join(s + "=" * (-len(s) % 4) for s in padded))
    write("jws", "five-segments-jwe", "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a.b.c.d")
    write("jws", "dot-combining", "eyJhbGciOiJIUzI1NiJ9.\u0301eyJ9.")
    write("jws", "empty", "")

    # JWKS / JWK
    rsa_pub = {"kty": "RSA", "kid": "W6WcOKB", "use": "sig", "alg": "RS256", "n": a2["n"], "e": a2["e"]}
    rsa_priv = dict(rsa_pub, **{k: a2[k] for k in ("d", "p", "q", "dp", "dq", "qi")})
    ec_pub = {"kty": "EC", "kid": "ec", "crv": "P-256", "x": a3["x"], "y": a3["y"]}
    ec_priv = dict(ec_pub, d=a3["d"])
    oct_key = {"kty": "oct", "kid": "h", "k": "c2VjcmV0"}
    def dump(obj):
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    write("jwks", "jwks-apple-like", dump({"keys": [rsa_pub, dict(rsa_pub, kid="fh6Bs8C")]}))
    write("jwks", "jwks-mixed", dump({"keys": [oct_key, {"kid": "nokty"}, 42, rsa_pub, ec_pub, None, [], {"kty": 1}]}))
    write("jwks", "jwks-private", dump({"keys": [rsa_priv, ec_priv]}))
    write("jwks", "jwk-rsa-public", dump(rsa_pub))
    write("jwks", "jwk-rsa-private", dump(rsa_priv))
    write("jwks", "jwk-rsa-private-no-crt", dump({k: v for k, v in rsa_priv.items() if k not in ("p", "q", "dp", "dq", "qi")}))
    write("jwks", "jwk-rsa-partial-crt", dump({k: v for k, v in rsa_priv.items() if k not in ("dq", "qi")}))
    write("jwks", "jwk-rsa-7638", dump(members["rfc7638Key"]))
    write("jwks", "jwk-ec-public", dump(ec_pub))
    write("jwks", "jwk-ec-private", dump(ec_priv))
    write("jwks", "jwk-ec-off-curve", dump(dict(ec_pub, y=b64(b"\x01" * 32))))
    write("jwks", "jwk-ec-short", dump(dict(ec_pub, x=b64(b"\x01" * 31))))
    write("jwks", "jwk-oct", dump(oct_key))
    write("jwks", "jwk-rsa-tiny", dump({"kty": "RSA", "n": b64int(3233), "e": b64int(17)}))
    write("jwks", "jwk-rsa-even-exponent", dump({"kty": "RSA", "n": a2["n"], "e": b64int(2)}))
    write("jwks", "jwks-duplicate-keys-member", '{"keys":[],"keys":[' + dump(rsa_pub) + "]}")
    write("jwks", "jwk-duplicate-member", '{"kty":"RSA","kty":"EC"}')
    write("jwks", "jwks-keys-not-array", '{"keys":{"kty":"RSA"}}')
    write("jwks", "jwk-redacted-members", dump(dict(oct_key, d="x", p="y", q="z")))

    # Strict JSON: JOSE headers/claims plus RFC 8259 edge cases.
    for name, data in {
        "claims": dump(claims),
        "header": '{"alg":"RS256","kid":"W6WcOKB","typ":"JWT"}',
        "jwks": dump({"keys": [rsa_pub, ec_pub]}),
        "rfc7515-payload": '{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}',
        "numbers": "[0,-0,1,-1,9223372036854775807,-9223372036854775808,9223372036854775808,1.5,-1.5e-7,1E+21,0.1e1]",
        "numbers-bad": "[01,1.,.5,-,+1,1e,0x10,NaN,Infinity]",
        "huge-exponent": "[1e999,-1e999,1e-999]",
        "strings": '["","\\u0000","\\ud83d\\ude00","\\"\\\\\\/\\b\\f\\n\\r\\t","é€😀","\\u00e9"]',
        "lone-surrogate": '["\\ud800"]',
        "control-in-string": '["a\tb"]',
        "invalid-utf8": b'["\xc3\x28"]',
        "duplicates": '{"a":1,"b":2,"a":3}',
        "nested-duplicates": '{"a":{"x":1,"x":2},"a":[{"y":1,"y":[]}]}',
        "deep-64": "[" * 64 + "]" * 64,
        "deep-65": "[" * 65 + "]" * 65,
        "deep-objects": '{"a":' * 40 + "null" + "}" * 40,
        "literals": "[true,false,null]",
        "whitespace": " \t\r\n{ \"a\" : [ 1 , 2 ] } \n",
        "trailing": '{"a":1} x',
        "bom": b'\xef\xbb\xbf{"a":1}',
        "unicode-names": '{"\u00e9":1,"e\u0301":2,"\u212b":3,"\u00c5":4}',
        "empty": b"",
    }.items():
        write("json", name, data)


def main():
    for target in ("spec", "legacy", "jws", "jwks", "json"):
        shutil.rmtree(os.path.join(CORPUS, target), ignore_errors=True)
        os.makedirs(os.path.join(CORPUS, target))
    spec_seeds()
    legacy_seeds()
    jose_seeds()
    total = 0
    for target in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, target))
        size = sum(os.path.getsize(os.path.join(CORPUS, target, f)) for f in files)
        total += size
        print("%-7s %4d files %7d bytes" % (target, len(files), size))
    print("total %d bytes" % total)


if __name__ == "__main__":
    sys.exit(main())
