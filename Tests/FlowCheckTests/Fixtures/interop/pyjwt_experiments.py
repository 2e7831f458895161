#!/usr/bin/env python3
"""Direct experiments against the installed PyJWT, independent of flowspec.

Every token is built BY HAND: base64url of JSON text this script controls, signed with
cryptography's RSA PKCS#1 v1.5 / SHA-256 (or HMAC, or nothing, where the case says so). Each one
goes through exactly the verification the reference backend runs (``verify_google_id_token`` is
imported from google_pyjwt_backend.py): ``jwt.PyJWKClient(jwks_uri).get_signing_key_from_jwt``
against this script's own JWKS, served on 127.0.0.1, then
``jwt.decode(token, signing_key.key, algorithms=["RS256"], audience=CLIENT_ID,
issuer=["https://accounts.google.com", "accounts.google.com"])``.

Output, one JSON object on stdout:
  {"documented": {case: bool}, "observed": {case: bool}, "pyjwt_version": "...",
   "citations": {case: "..."}, "raised": {case: "Exception: message" | null},
   "control": bool, "extra": {...}}
true = PyJWT ACCEPTS the token (the call returns), false = it raises. "documented" is what PyJWT's
docs, changelog or source say should happen; "citations" says where. Line numbers refer to
PyJWT 2.15.1 as installed (site-packages/jwt/...). The exit status is always 0: the Swift test
compares the columns.
"""

import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # importing the backend must not leave __pycache__ in the fixtures
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import jwt
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    from google_pyjwt_backend import verify_google_id_token
except ImportError as import_error:  # exit 0 always: say what is missing instead
    print(json.dumps({"error": "ImportError: %s" % import_error, "pyjwt_version": None}))
    sys.exit(0)

CLIENT_ID = "1234567890-experiments.apps.googleusercontent.com"
OTHER_CLIENT = "com.attacker.app"
KID = "experiments-key-1"
SUB = "109876543210987654321"

# case -> (PyJWT accepts?, where that is said)
DOCUMENTED = {
    "aud_array_with_other": (
        True,
        "PyJWT docs, Usage > Audience Claim (aud): a token with 'aud': ['urn:foo', 'urn:bar'] decodes with "
        "audience='urn:foo'; strict_aud defaults to False (jwt/types.py:36-37); jwt/api_jwt.py:562 accepts when any "
        "expected audience is in the list",
    ),
    "aud_single_element_array": (
        True,
        "PyJWT docs, Usage > Audience Claim (aud): 'In the general case, the aud value is an array'; "
        "jwt/api_jwt.py:552-563 (a list claim matches when it contains the audience)",
    ),
    "duplicate_aud_ours_then_other": (
        False,
        "Docs silent on duplicate members. jwt/api_jwt.py:298 parses the payload with json.loads, and the Python "
        "json docs say the module 'ignores all but the last name-value pair for a given name': aud becomes the "
        "other client -> InvalidAudienceError",
    ),
    "duplicate_aud_other_then_ours": (
        True,
        "Docs silent on duplicate members. jwt/api_jwt.py:298 uses json.loads, which keeps the LAST duplicate "
        "(Python json docs): aud becomes ours",
    ),
    "exp_missing": (
        True,
        "jwt/types.py:21-27 (Options docstring): 'Some claims, such as exp, iat, jti, nbf, and sub, will only be "
        "verified if present ... include them in the require param'; require defaults to [] (jwt/api_jwt.py:62)",
    ),
    "exp_string": (
        False,
        "PyJWT docs, Usage > Expiration Time Claim (exp) (quoting RFC 7519): 'Its value MUST be a number "
        "containing a NumericDate value'; jwt/api_jwt.py:505-510 raises 'Expiration Time claim (exp) must be an "
        "integer.' (but the check is int(payload['exp']), which also converts a numeric string)",
    ),
    "exp_past": (
        False,
        "PyJWT docs, Usage > Expiration Time Claim (exp): 'Expiration time is automatically verified in "
        "jwt.decode() and raises jwt.ExpiredSignatureError if the expiration time is in the past'; leeway "
        "defaults to 0 (jwt/api_jwt.py:512)",
    ),
    "iat_missing": (
        True,
        "jwt/types.py:21-27: iat is 'only verified if present'; require defaults to []",
    ),
    "iat_future_hour": (
        False,
        "PyJWT CHANGELOG v2.6.0: 'Adding validation for issued_at when iat > (now + leeway) as "
        "ImmatureSignatureError' (#794); jwt/api_jwt.py:482-483",
    ),
    "iat_string": (
        False,
        "PyJWT docs, Usage > Issued At Claim (iat): 'If the iat claim is not a number, an "
        "jwt.InvalidIssuedAtError exception will be raised'; jwt/types.py:43 'Check that iat (issued at) claim "
        "value is an integer' (the code, jwt/api_jwt.py:477, is int(payload['iat']))",
    ),
    "nbf_future_hour": (
        False,
        "PyJWT docs, Usage > Not Before Time Claim (nbf): 'The nbf claim works similarly to the exp claim'; "
        "jwt/types.py:49 'Check that nbf ... is in the past'; jwt/api_jwt.py:496-497 ImmatureSignatureError",
    ),
    "nbf_string": (
        False,
        "PyJWT docs, Usage > Not Before Time Claim (nbf) (quoting RFC 7519): 'Its value MUST be a number'; "
        "jwt/api_jwt.py:491-494 raises 'Not Before claim (nbf) must be an integer.' (but the check is "
        "int(payload['nbf']), which also converts a numeric string)",
    ),
    "sub_missing": (
        True,
        "jwt/types.py:21-27 and :51 ('Check that sub ... is a string ... (if present in payload)'); "
        "jwt/api_jwt.py:446-447 returns when sub is absent",
    ),
    "sub_empty": (
        True,
        "jwt/types.py:51 only requires sub to be a string; jwt/api_jwt.py:449 (isinstance str) - no emptiness check",
    ),
    "sub_numeric": (
        False,
        "PyJWT CHANGELOG v2.10.0: 'Added validation for sub (subject) and jti (JWT ID) claims' (#1005); "
        "jwt/types.py:51; jwt/api_jwt.py:449-450 InvalidSubjectError 'Subject must be a string'",
    ),
    "azp_other": (
        True,
        "PyJWT has no azp handling: the string 'azp' occurs nowhere in jwt/*.py; the docs' OIDC Login Flow example "
        "checks only audience (+ at_hash by hand)",
    ),
    "crit_unknown": (
        False,
        "CVE-2026-32597 / GHSA-752w-5fwx-jx9f, fixed in PyJWT 2.12.0 ('PyJWT accepts unknown crit header "
        "extensions'); jwt/api_jws.py:449 (_supported_crit = {'b64'}) and :470-471 'Unsupported critical extension'",
    ),
    "sig_standard_base64_alphabet": (
        False,
        "Docs silent. jwt/api_jws.py:31-33 (_BASE64URL_ALPHABET is A-Z a-z 0-9 - _) and :341-344: any other "
        "character -> DecodeError 'Invalid crypto padding' (hardening for GHSA-hxm8-2xgr-2p9m)",
    ),
    "sig_padding": (
        True,
        "Docs silent. jwt/api_jws.py:328-329: 'Accept trailing = used by some issuers (e.g. AWS ALB)'; canonical "
        "padding only (:330-339); jpadilla/pyjwt#1209, #1211",
    ),
    "payload_padding": (
        False,
        "jwt/api_jws.py:364: the signing input is the token text before the last '.', padding included; the "
        "signature was computed over the unpadded text -> InvalidSignatureError (jwt/api_jws.py:445-446)",
    ),
    "header_padding": (
        False,
        "jwt/api_jws.py:364 (signing input includes the '=' just as for the payload) -> InvalidSignatureError",
    ),
    "alg_none": (
        False,
        "jwt.decode docstring: hard-code algorithms; jwt/api_jws.py:415-416 'The specified alg value is not "
        "allowed' when alg is not in algorithms=['RS256']",
    ),
    "hs256_with_public_pem": (
        False,
        "jwt/api_jws.py:415-416 (HS256 is not in algorithms=['RS256']); PyJWT CHANGELOG v2.4.0 CVE-2022-29217 "
        "(key confusion) ; jwt.decode docstring warns not to mix HS* and RS*",
    ),
    "iss_http": (
        False,
        "PyJWT docs, Usage > Issuer Claim (iss): 'If the issuer claim is incorrect, jwt.InvalidIssuerError will be "
        "raised'; jwt/api_jwt.py:582-584 (membership test in the issuer list); CHANGELOG v2.10.1 'Prevent partial "
        "matching of iss claim'",
    ),
    "iss_no_scheme": (
        True,
        "PyJWT CHANGELOG v2.9.0: 'Allow JWT issuer claim validation to accept a list of strings too' (#913); "
        "'accounts.google.com' is in the list; jwt/api_jwt.py:583",
    ),
    "new_kid_right_after_rotation": (
        False,
        "jwt/jwks_client.py get_signing_key: on an unknown kid the JWK Set is refetched only when the last fetch "
        "is at least cooldown_duration (default 30 s) old, otherwise PyJWKClientError; a key the provider "
        "publishes seconds after the client's last fetch is refused until then",
    ),
    "jwk_header_attacker_key_unknown_kid": (
        False,
        "jwt/jwks_client.py:263-298 get_signing_key: no match after one refresh -> PyJWKClientError 'Unable to "
        "find a signing key that matches' (:293-296); PyJWKSet.__getitem__ raises KeyError (jwt/api_jwk.py:181); "
        "PyJWT never reads a 'jwk' header (no occurrence in jwt/*.py)",
    ),
}


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def uint(value):
    return b64u(value.to_bytes((value.bit_length() + 7) // 8, "big"))


def public_jwk(private_key, kid):
    numbers = private_key.public_key().public_numbers()
    return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": uint(numbers.n), "e": uint(numbers.e)}


def rs256(private_key, signing_input):
    return private_key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())


def text(obj):
    return json.dumps(obj, separators=(",", ":"))


def header_text(**extra):
    header = {"alg": "RS256", "kid": KID, "typ": "JWT"}
    header.update(extra)
    return text(header)


def base_claims(now, **changes):
    claims = {
        "iss": "https://accounts.google.com",
        "azp": CLIENT_ID,
        "aud": CLIENT_ID,
        "sub": SUB,
        "email": "experiments@example.com",
        "email_verified": True,
        "at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q",
        "nonce": "n-0S6_WzA2Mj",
        "name": "Ex Periment",
        "given_name": "Ex",
        "family_name": "Periment",
        "iat": now,
        "exp": now + 3600,
    }
    for name, value in changes.items():
        if value is _DROP:
            claims.pop(name, None)
        else:
            claims[name] = value
    return claims


_DROP = object()


def compact(header_json, payload_json, key):
    signing_input = b64u(header_json.encode()) + "." + b64u(payload_json.encode())
    return signing_input + "." + b64u(rs256(key, signing_input))


def pad_to_one_equals(json_text):
    """Add insignificant whitespace inside the object until its base64url needs exactly one '='."""
    while len(json_text.encode()) % 3 != 2:
        json_text = json_text[:-1] + " }"
    return json_text


class JWKSServer:
    def __init__(self, jwks):
        self.jwks = jwks
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = json.dumps(outer.jwks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.uri = "http://127.0.0.1:%d/oauth2/v3/certs" % self.server.server_port

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def build_cases(key, attacker_key, now):
    cases = {}

    def plain(**changes):
        return compact(header_text(), text(base_claims(now, **changes)), key)

    cases["aud_array_with_other"] = plain(aud=[CLIENT_ID, OTHER_CLIENT])
    cases["aud_single_element_array"] = plain(aud=[CLIENT_ID])

    without_aud = text(base_claims(now, aud=_DROP))
    ours_then_other = without_aud[:-1] + ',"aud":%s,"aud":%s}' % (json.dumps(CLIENT_ID), json.dumps(OTHER_CLIENT))
    other_then_ours = without_aud[:-1] + ',"aud":%s,"aud":%s}' % (json.dumps(OTHER_CLIENT), json.dumps(CLIENT_ID))
    cases["duplicate_aud_ours_then_other"] = compact(header_text(), ours_then_other, key)
    cases["duplicate_aud_other_then_ours"] = compact(header_text(), other_then_ours, key)

    cases["exp_missing"] = plain(exp=_DROP)
    cases["exp_string"] = plain(exp=str(now + 3600))
    cases["exp_past"] = plain(iat=now - 3960, exp=now - 360)
    cases["iat_missing"] = plain(iat=_DROP)
    cases["iat_future_hour"] = plain(iat=now + 3600, exp=now + 7200)
    cases["iat_string"] = plain(iat=str(now))
    cases["nbf_future_hour"] = plain(nbf=now + 3600, exp=now + 7200)
    cases["nbf_string"] = plain(nbf=str(now - 60))
    cases["sub_missing"] = plain(sub=_DROP)
    cases["sub_empty"] = plain(sub="")
    cases["sub_numeric"] = compact(header_text(), text(base_claims(now, sub=_DROP))[:-1] + ',"sub":%s}' % SUB, key)
    cases["azp_other"] = plain(azp="other-client.apps.googleusercontent.com")
    cases["crit_unknown"] = compact(header_text(crit=["x-unknown"], **{"x-unknown": True}), text(base_claims(now)), key)

    # A signature whose base64url has '-' or '_': vary iat until it does, then switch to + and /.
    for shift in range(0, 500):
        token = plain(iat=now - shift, exp=now - shift + 3600)
        signature = token.rsplit(".", 1)[1]
        if "-" in signature or "_" in signature:
            break
    else:
        raise RuntimeError("no signature with - or _ found")
    head, signature = token.rsplit(".", 1)
    cases["sig_standard_base64_alphabet"] = head + "." + signature.replace("-", "+").replace("_", "/")

    token = plain()
    assert len(token.rsplit(".", 1)[1]) % 4 == 2, "a 2048-bit RS256 signature needs '==' padding"
    cases["sig_padding"] = token + "=="

    # '=' appended after signing; the JSON is padded with whitespace so one '=' is canonical padding,
    # which leaves the signature (computed over the unpadded text) as the only thing that can fail.
    payload_json = pad_to_one_equals(text(base_claims(now)))
    head_json = header_text()
    h, p = b64u(head_json.encode()), b64u(payload_json.encode())
    cases["payload_padding"] = h + "." + p + "=." + b64u(rs256(key, h + "." + p))
    head_json = pad_to_one_equals(header_text())
    payload_json = text(base_claims(now))
    h, p = b64u(head_json.encode()), b64u(payload_json.encode())
    cases["header_padding"] = h + "=." + p + "." + b64u(rs256(key, h + "." + p))

    cases["alg_none"] = (
        b64u(text({"alg": "none", "kid": KID, "typ": "JWT"}).encode()) + "." + b64u(text(base_claims(now)).encode()) + "."
    )

    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    signing_input = b64u(text({"alg": "HS256", "kid": KID, "typ": "JWT"}).encode()) + "." + b64u(text(base_claims(now)).encode())
    cases["hs256_with_public_pem"] = (
        signing_input + "." + b64u(hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest())
    )

    cases["iss_http"] = plain(iss="http://accounts.google.com")
    cases["iss_no_scheme"] = plain(iss="accounts.google.com")

    attacker_jwk = public_jwk(attacker_key, "attacker-kid")
    cases["jwk_header_attacker_key_unknown_kid"] = compact(
        header_text(kid="attacker-kid", jwk=attacker_jwk), text(base_claims(now)), attacker_key
    )
    return cases, plain()


def padded_but_signed_over_padded(key, now, segment):
    """ALB-style: the '=' is part of the text that was signed. Reported in "extra" only."""
    head_json, payload_json = header_text(), text(base_claims(now))
    if segment == "payload":
        payload_json = pad_to_one_equals(payload_json)
        signing_input = b64u(head_json.encode()) + "." + b64u(payload_json.encode()) + "="
    else:
        head_json = pad_to_one_equals(head_json)
        signing_input = b64u(head_json.encode()) + "=." + b64u(payload_json.encode())
    return signing_input + "." + b64u(rs256(key, signing_input))


def main():
    for name in ("no_proxy", "NO_PROXY"):
        loopback = "127.0.0.1,localhost"
        os.environ[name] = (os.environ[name] + "," + loopback) if os.environ.get(name) else loopback

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    attacker_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks = {"keys": [public_jwk(key, KID)]}
    server = JWKSServer(jwks)
    try:
        jwks_client = jwt.PyJWKClient(server.uri)
        now = int(time.time())
        cases, control_token = build_cases(key, attacker_key, now)

        def attempt(token):
            try:
                verify_google_id_token(token, jwks_client, CLIENT_ID)
                return True, None
            except Exception as exc:  # what the backend's try/except turns into a 401
                return False, "%s: %s" % (type(exc).__name__, exc)

        control, control_error = attempt(control_token)
        observed, raised = {}, {}
        for name in DOCUMENTED:
            if name in cases:
                observed[name], raised[name] = attempt(cases[name])
        # Key rotation: the provider publishes a new key and signs with it at once (the client
        # fetched the JWK Set moments ago, for the tokens above).
        rotated = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        server.jwks = {"keys": [public_jwk(key, KID), public_jwk(rotated, "rotated-kid")]}
        rotated_token = compact(header_text(kid="rotated-kid"), text(base_claims(now)), rotated)
        observed["new_kid_right_after_rotation"], raised["new_kid_right_after_rotation"] = attempt(rotated_token)

        extra = {
            "payload_padding_signed_over_padded": attempt(padded_but_signed_over_padded(key, now, "payload"))[0],
            "header_padding_signed_over_padded": attempt(padded_but_signed_over_padded(key, now, "header"))[0],
        }
        try:
            jwt.PyJWKSet.from_dict(jwks)["attacker-kid"]
            extra["pyjwkset_getitem_unknown_kid"] = "returned a key"
        except Exception as exc:
            extra["pyjwkset_getitem_unknown_kid"] = "%s: %s" % (type(exc).__name__, exc)
        if control_error:
            extra["control_error"] = control_error
    finally:
        server.close()

    result = {
        "documented": {name: accepted for name, (accepted, _) in DOCUMENTED.items()},
        "observed": observed,
        "pyjwt_version": jwt.__version__,
        "citations": {name: citation for name, (_, citation) in DOCUMENTED.items()},
        "raised": raised,
        "control": control,
        "extra": extra,
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as exc:  # never a non-zero exit: report what broke instead
        print(json.dumps({"error": "%s: %s" % (type(exc).__name__, exc), "pyjwt_version": getattr(jwt, "__version__", None)}))
        sys.exit(0)
