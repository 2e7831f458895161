#!/usr/bin/env python3
"""Direct experiments against the installed PyJWT, independent of flowspec.

Every token is built BY HAND: base64url of JSON text this script controls, signed with
cryptography's RSA PKCS#1 v1.5 / SHA-256 (or HMAC, or nothing, where the case says so). Each one
goes through exactly the token checks the reference backend's login runs (``verify_login`` is
imported from google_pyjwt_backend.py): ``jwt.PyJWKClient(jwks_uri).get_signing_key_from_jwt``
against this script's own JWKS, served on 127.0.0.1, then
``jwt.decode(token, signing_key.key, algorithms=["RS256"], audience=CLIENT_ID,
issuer=["https://accounts.google.com", "accounts.google.com"])``, then the backend's own
comparisons: the token's nonce with the posted nonce (always the honest one here), and its sub
with the sub of the token the code exchange returned (always the honest token here, as the
checker's provider returns it). The nonce_* rows post a whole login request to the backend's
Flask app (``create_app``, driven by Flask's test client) whose token endpoint is this script's
server, answering with the honest token.

Output, one JSON object on stdout:
  {"documented": {case: bool}, "observed": {case: bool}, "pyjwt_version": "...",
   "citations": {case: "..."}, "raised": {case: "Exception: message" | null},
   "control": bool, "extra": {...}}
true = the backend ACCEPTS the token (verify_login returns; for nonce_*, the login answers 200),
false = it refuses. "documented" is what PyJWT's docs, changelog or source, the Python json docs
or the backend's own code say should happen; "citations" says where. Line numbers refer to
PyJWT 2.15.1 as installed (site-packages/jwt/...) and to google_pyjwt_backend.py. A row with
more than one token is accepted only when every token is. The exit status is always 0: the
Swift test compares the columns.
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

    from google_pyjwt_backend import create_app, verify_login
except ImportError as import_error:  # exit 0 always: say what is missing instead
    print(json.dumps({"error": "ImportError: %s" % import_error, "pyjwt_version": None}))
    sys.exit(0)

CLIENT_ID = "1234567890-experiments.apps.googleusercontent.com"
OTHER_CLIENT = "com.attacker.app"
KID = "experiments-key-1"
SUB = "109876543210987654321"
OTHER_SUB = "100000000000000000042"
NONCE = "n-0S6_WzA2Mj"
ISSUER = "https://accounts.google.com"

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
    "duplicate_exp_future_then_past": (
        False,
        "Docs silent on duplicate members. jwt/api_jwt.py:298 uses json.loads, which 'ignores all but the last "
        "name-value pair for a given name' (Python json docs): exp becomes 6 minutes ago -> ExpiredSignatureError "
        "(jwt/api_jwt.py:512-513, leeway 0)",
    ),
    "duplicate_exp_past_then_future": (
        True,
        "Docs silent on duplicate members. jwt/api_jwt.py:298 uses json.loads, which keeps the LAST duplicate "
        "(Python json docs): exp becomes the future one",
    ),
    "duplicate_iss_google_then_evil": (
        False,
        "Docs silent on duplicate members. jwt/api_jwt.py:298 uses json.loads, which keeps the LAST duplicate "
        "(Python json docs): iss becomes 'https://accounts.google.com.evil.example' -> InvalidIssuerError "
        "(jwt/api_jwt.py:582-584, membership in the issuer list)",
    ),
    "duplicate_iss_evil_then_google": (
        True,
        "Docs silent on duplicate members. jwt/api_jwt.py:298 uses json.loads, which keeps the LAST duplicate "
        "(Python json docs): iss becomes https://accounts.google.com",
    ),
    "duplicate_sub_user_then_other": (
        False,
        "json.loads keeps the LAST duplicate (Python json docs; jwt/api_jwt.py:298): sub becomes another user's, "
        "a string, which PyJWT accepts (jwt/api_jwt.py:449, no subject= given); the backend's verify_login then "
        "compares it with the exchanged token's sub (google_pyjwt_backend.py:131-132) -> sub_mismatch",
    ),
    "duplicate_sub_other_then_user": (
        True,
        "json.loads keeps the LAST duplicate (Python json docs; jwt/api_jwt.py:298): sub becomes the user's own, "
        "equal to the exchanged token's sub (google_pyjwt_backend.py:131-132)",
    ),
    "duplicate_nonce_right_then_wrong": (
        False,
        "json.loads keeps the LAST duplicate (Python json docs; jwt/api_jwt.py:298): nonce becomes nonce + '1' "
        "(PyJWT never reads nonce); the backend's verify_login compares it with the posted nonce "
        "(google_pyjwt_backend.py:123-125) -> invalid_nonce",
    ),
    "duplicate_nonce_wrong_then_right": (
        True,
        "json.loads keeps the LAST duplicate (Python json docs; jwt/api_jwt.py:298): nonce becomes the right one, "
        "equal to the posted nonce (google_pyjwt_backend.py:123-125)",
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
        False,
        "PyJWT accepts it: jwt/types.py:21-27 and :51 ('Check that sub ... is a string ... (if present in "
        "payload)'); jwt/api_jwt.py:446-447 returns when sub is absent. The backend's verify_login refuses it: "
        "None differs from the exchanged token's sub (google_pyjwt_backend.py:131-132) -> sub_mismatch",
    ),
    "sub_empty": (
        False,
        "PyJWT accepts it: jwt/types.py:51 only requires sub to be a string; jwt/api_jwt.py:449 (isinstance str), "
        "no emptiness check. The backend's verify_login refuses it: '' differs from the exchanged token's sub "
        "(google_pyjwt_backend.py:131-132) -> sub_mismatch",
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
    "header_padding_signed_as_sent": (
        True,
        "Docs silent. jwt/api_jws.py:369 decodes the header with _decode_base64url_segment, which accepts "
        "canonical trailing '=' ('Accept trailing = used by some issuers (e.g. AWS ALB)', :328-329; at most two, "
        "the segment a multiple of 4 long, :335-339); the signing input is the text as sent (:364), so a "
        "signature over the padded text verifies. Both '=' and '==' are tried; jpadilla/pyjwt#1209, #1211",
    ),
    "payload_padding_signed_as_sent": (
        True,
        "Docs silent. jwt/api_jws.py:391 decodes the payload with the same _decode_base64url_segment "
        "(:328-339, canonical '=' accepted); the signing input is the text as sent (:364). Both '=' and '==' "
        "are tried",
    ),
    "header_padding_signed_unpadded": (
        False,
        "jwt/api_jws.py:364: the signing input is the token text before the last '.', padding included; the "
        "signature was computed over the unpadded text (as a provider that does not pad computes it) -> "
        "InvalidSignatureError (jwt/api_jws.py:445-446)",
    ),
    "payload_padding_signed_unpadded": (
        False,
        "jwt/api_jws.py:364 (signing input includes the '=' just as for the header) -> InvalidSignatureError",
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
    "nonce_absent": (
        False,
        "The backend's own code: login() answers 400 invalid_request when login_request_problem finds a member "
        "that is not a non-empty string (google_pyjwt_backend.py:98-109, the check at :107; called at :240-242), "
        "before the code exchange; a missing nonce is None",
    ),
    "nonce_empty": (
        False,
        "The backend's own code: google_pyjwt_backend.py:107 'not isinstance(value, str) or not value' -> 400 "
        "invalid_request (:240-242)",
    ),
    "nonce_null": (
        False,
        "The backend's own code: JSON null is None, not a str (google_pyjwt_backend.py:107) -> 400 "
        "invalid_request (:240-242)",
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
        "iss": ISSUER,
        "azp": CLIENT_ID,
        "aud": CLIENT_ID,
        "sub": SUB,
        "email": "experiments@example.com",
        "email_verified": True,
        "at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q",
        "nonce": NONCE,
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


def needing_padding(json_text, equals):
    """Add insignificant whitespace inside the object until its base64url needs exactly `equals` '='."""
    while len(json_text.encode()) % 3 != 3 - equals:
        json_text = json_text[:-1] + " }"
    return json_text


def padded_segment(json_text):
    """base64url of json_text with its canonical '=' padding kept."""
    return base64.urlsafe_b64encode(json_text.encode()).decode("ascii")


def duplicated(claims_json, name, first, second):
    """The claims JSON text with `name` left out, then written twice: first, then second."""
    return claims_json[:-1] + ',"%s":%s,"%s":%s}' % (name, json.dumps(first), name, json.dumps(second))


class JWKSServer:
    """GET: the JWK Set. POST: a token endpoint answering any code exchange with `exchanged_id_token`."""

    def __init__(self, jwks):
        self.jwks = jwks
        self.exchanged_id_token = None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, document):
                body = json.dumps(document).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self.answer(outer.jwks)

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.answer({"access_token": "experiments-access", "token_type": "Bearer", "expires_in": 3600,
                             "id_token": outer.exchanged_id_token})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.uri = "http://127.0.0.1:%d/oauth2/v3/certs" % self.server.server_port
        self.token_uri = "http://127.0.0.1:%d/token" % self.server.server_port

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def build_cases(key, attacker_key, now):
    cases = {}

    def plain(**changes):
        return compact(header_text(), text(base_claims(now, **changes)), key)

    cases["aud_array_with_other"] = plain(aud=[CLIENT_ID, OTHER_CLIENT])
    cases["aud_single_element_array"] = plain(aud=[CLIENT_ID])

    # Duplicate members, the right value first then the wrong one and the reverse (as C16 sends them).
    def duplicate(name, first, second):
        return compact(header_text(), duplicated(text(base_claims(now, **{name: _DROP})), name, first, second), key)

    for name, right, wrong, right_wrong, wrong_right in (
        ("aud", CLIENT_ID, OTHER_CLIENT, "ours_then_other", "other_then_ours"),
        ("exp", now + 3600, now - 360, "future_then_past", "past_then_future"),
        ("iss", ISSUER, ISSUER + ".evil.example", "google_then_evil", "evil_then_google"),
        ("sub", SUB, OTHER_SUB, "user_then_other", "other_then_user"),
        ("nonce", NONCE, NONCE + "1", "right_then_wrong", "wrong_then_right"),
    ):
        cases["duplicate_%s_%s" % (name, right_wrong)] = duplicate(name, right, wrong)
        cases["duplicate_%s_%s" % (name, wrong_right)] = duplicate(name, wrong, right)

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

    # Canonical '=' on the header or the payload segment alone, the JSON given whitespace so that
    # base64url needs it, and the signature computed over the padded text actually sent (S13). With
    # one '=' and with '==': the checker's JSON needs either, depending on its length.
    def padded_as_sent(segment, equals):
        head_json, payload_json = header_text(), text(base_claims(now))
        if segment == "header":
            h, p = padded_segment(needing_padding(head_json, equals)), b64u(payload_json.encode())
        else:
            h, p = b64u(head_json.encode()), padded_segment(needing_padding(payload_json, equals))
        assert (h if segment == "header" else p).endswith("=" * equals)
        return h + "." + p + "." + b64u(rs256(key, h + "." + p))

    for segment in ("header", "payload"):
        cases["%s_padding_signed_as_sent" % segment] = [padded_as_sent(segment, 1), padded_as_sent(segment, 2)]

    # The same '=' appended after signing (a provider that does not pad signs the unpadded text),
    # which leaves the signature as the only thing that can fail.
    head_json, payload_json = header_text(), needing_padding(text(base_claims(now)), 1)
    h, p = b64u(head_json.encode()), b64u(payload_json.encode())
    cases["payload_padding_signed_unpadded"] = h + "." + p + "=." + b64u(rs256(key, h + "." + p))
    head_json, payload_json = needing_padding(header_text(), 1), text(base_claims(now))
    h, p = b64u(head_json.encode()), b64u(payload_json.encode())
    cases["header_padding_signed_unpadded"] = h + "=." + p + "." + b64u(rs256(key, h + "." + p))

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

        def attempt(tokens):
            for token in tokens if isinstance(tokens, list) else [tokens]:
                try:
                    # The posted nonce is the honest one and the exchanged token the honest token.
                    verify_login(token, NONCE, control_token, jwks_client, CLIENT_ID)
                except Exception as exc:  # LoginRefused: what login() answers 401 with
                    return False, "%s: %s" % (type(exc).__name__, exc)
            return True, None

        # The login endpoint itself, through Flask's test client: the provider is this script's
        # server (its token endpoint answers with the honest token), so only the body varies.
        class Provider:
            def get(self):
                return server.token_uri, jwks_client

        server.exchanged_id_token = control_token
        app = create_app({"client_id": CLIENT_ID, "client_secret": "experiments-secret", "redirect_uri": None, "provider": Provider()})
        client = app.test_client()

        def log_in(body):
            response = client.post("/api/v1/auth/google/login", json=body)
            if response.status_code == 200:
                return True, None
            return False, "HTTP %d %s" % (response.status_code, response.get_data(as_text=True).strip())

        honest_body = {"code": "experiments-code", "id_token": control_token, "nonce": NONCE}
        login_cases = {
            "nonce_absent": {name: value for name, value in honest_body.items() if name != "nonce"},
            "nonce_empty": dict(honest_body, nonce=""),
            "nonce_null": dict(honest_body, nonce=None),
        }

        control, control_error = attempt(control_token)
        login_control, login_control_error = log_in(honest_body)
        observed, raised = {}, {}
        for name in DOCUMENTED:
            if name in cases:
                observed[name], raised[name] = attempt(cases[name])
            elif name in login_cases:
                observed[name], raised[name] = log_in(login_cases[name])
        # Key rotation: the provider publishes a new key and signs with it at once (the client
        # fetched the JWK Set moments ago, for the tokens above).
        rotated = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        server.jwks = {"keys": [public_jwk(key, KID), public_jwk(rotated, "rotated-kid")]}
        rotated_token = compact(header_text(kid="rotated-kid"), text(base_claims(now)), rotated)
        observed["new_kid_right_after_rotation"], raised["new_kid_right_after_rotation"] = attempt(rotated_token)

        extra = {"login_control": login_control}
        try:
            jwt.PyJWKSet.from_dict(jwks)["attacker-kid"]
            extra["pyjwkset_getitem_unknown_kid"] = "returned a key"
        except Exception as exc:
            extra["pyjwkset_getitem_unknown_kid"] = "%s: %s" % (type(exc).__name__, exc)
        if control_error:
            extra["control_error"] = control_error
        if login_control_error:
            extra["login_control_error"] = login_control_error
    finally:
        server.close()

    result = {
        "documented": {name: accepted for name, (accepted, _) in DOCUMENTED.items()},
        "observed": observed,
        "pyjwt_version": jwt.__version__,
        "citations": {name: citation for name, (_, citation) in DOCUMENTED.items()},
        "raised": raised,
        "control": control and login_control,
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
