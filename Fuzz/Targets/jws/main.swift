// fuzz-jws: compact JWS text through JWS.parse (strict and every leniency the mock backend
// plays) and the whole JWTVerifier against fixed RSA, EC and HMAC keys.
import FuzzDriver
import JOSE

nonisolated(unsafe) var keys: JWKS = JWKS(keys: [])

func fuzzInitialize() {
    // kids match the seed tokens (Fuzz/corpus/jws), so the fuzzer reaches signature checks.
    let rsa = try! RSAKey.generate(bits: 2048)
    let ec = try! ECKey.generate()
    keys = JWKS(keys: [
        rsa.publicJWK(kid: "fuzz-rsa"), ec.publicJWK(kid: "fuzz-ec"),
        JWK(kty: "oct", kid: "fuzz-hmac", alg: "HS256", k: Base64URL.encode(Array("secret".utf8))),
    ])
}

func fuzzJWS(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let parsed = try? JWS.parse(text) {
        _ = parsed.algorithm
        _ = parsed.keyID
        _ = parsed.verifySignature(algorithm: .HS256, key: .hmac(Array("secret".utf8)))
    }
    for leniency in [JWS.Leniency(padding: true), JWS.Leniency(padding: true, duplicateClaims: .firstWins),
                     JWS.Leniency(duplicateClaims: .lastWins)] {
        _ = try? JWS.parse(text, leniency: leniency)
    }
    for algorithm in [JWSAlgorithm.RS256, .ES256, .HS256] {
        _ = JWTVerifier(expectedAlgorithm: algorithm, understoodCriticalHeaders: ["b64"]).verify(text, jwks: keys)
    }
}

fuzzInitialize()
runFuzzer(fuzzJWS)
