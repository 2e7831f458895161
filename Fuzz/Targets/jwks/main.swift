// fuzz-jwks: JSON bytes through JWKS.decode(json:) and JWK(json:), then every key through
// RSAKey(jwk:) / ECKey(jwk:) (OpenSSL import and checks), thumbprints and re-encoding.
import FuzzDriver
import JOSE

func exercise(_ jwk: JWK) {
    _ = jwk.thumbprint()
    _ = jwk.description
    _ = jwk.publicOnly
    // Re-encoding a decoded key must decode to the same key.
    let again = try? JWK(json: jwk.jsonBytes())
    precondition(again == jwk, "JWK does not survive jsonBytes(): \(jwk)")
    switch jwk.kty {
    case "RSA":
        if let key = try? RSAKey(jwk: jwk) { _ = key.bits; _ = key.hasPrivateKey }
    case "EC":
        _ = try? ECKey(jwk: jwk)
    default:
        break
    }
}

func fuzzJWKS(_ bytes: [UInt8]) {
    if let (set, skipped) = try? JWKS.decode(json: bytes) {
        precondition(skipped >= 0)
        for jwk in set.keys { exercise(jwk) }
        if let kid = set.keys.first?.kid { _ = set.keys(withID: kid) }
        let again = try? JWKS.decode(json: set.jsonBytes())
        precondition(again?.set == set && again?.skipped == 0, "JWKS does not survive jsonBytes()")
    }
    if let jwk = try? JWK(json: bytes) { exercise(jwk) }
}

runFuzzer(fuzzJWKS)
