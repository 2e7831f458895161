import FlowModel
import Testing
@testable import JOSE

/// The token cases of token-cases.md that live at the JOSE layer (P4, P6, S1–S12, C16).
@Suite("JWTVerifier (strict)")
struct VerifierTests {
    static let appleKey = try! RSAKey(jwk: Vectors.a2Key)
    static let otherKey = try! RSAKey.generate()
    static let claims: JSONObject = ["iss": "https://appleid.apple.com", "aud": "com.example.app", "exp": 1_300_819_380, "sub": "001091.x.2045"]

    static let jwks = JWKS(keys: [
        JWK(kty: "oct", kid: "W6WcOKB", k: "c2VjcmV0"),                                  // unusable: symmetric
        otherKey.publicJWK(kid: "W6WcOKB", use: "enc"),                                   // unusable: encryption key
        otherKey.publicJWK(kid: "fh6Bs8C"),
        appleKey.publicJWK(kid: "W6WcOKB"),
    ])

    static func token(header: JSONObject = ["kid": "W6WcOKB", "alg": "RS256"], payload: JSONObject = claims,
                      signer: JWSSigner = .rsa(appleKey, .RS256)) -> String {
        try! JWS.sign(header: header, payload: payload, signer: signer)
    }

    func verify(_ compact: String, jwks: JWKS = Self.jwks, alg: JWSAlgorithm = .RS256) -> Result<VerifiedJWT, JWTVerificationError> {
        JWTVerifier.verify(compact, jwks: jwks, expectedAlg: alg)
    }

    func error(_ compact: String, jwks: JWKS = Self.jwks) -> JWTVerificationError? {
        if case .failure(let error) = verify(compact, jwks: jwks) { error } else { nil }
    }

    @Test("P1/P4/P6: valid token, key chosen by kid past unusable keys with the same kid")
    func accepts() throws {
        let verified = try verify(Self.token()).get()
        #expect(verified.claims == Self.claims)
        #expect(verified.key == Self.appleKey.publicJWK(kid: "W6WcOKB"))
        // Signed by the second key of the set.
        let second = try verify(Self.token(header: ["alg": "RS256", "kid": "fh6Bs8C"], signer: .rsa(Self.otherKey, .RS256))).get()
        #expect(second.key.kid == "fh6Bs8C")
    }

    @Test("S1: flipped or stripped signature")
    func badSignature() throws {
        let good = Self.token()
        var signature = try #require(Base64URL.decode(String(good.split(separator: ".")[2])))
        signature[signature.count - 1] ^= 1
        let parts = good.split(separator: ".")
        #expect(error("\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))") == .badSignature)
        #expect(error("\(parts[0]).\(parts[1]).") == .badSignature)
    }

    @Test("S2: genuine kid, signed by another RSA key")
    func otherSigner() {
        #expect(error(Self.token(signer: .rsa(Self.otherKey, .RS256))) == .badSignature)
    }

    @Test("S3: alg none in any case, with empty or original signature", arguments: ["none", "None", "NONE", "nOnE"])
    func none(_ alg: String) {
        let unsecured = Self.token(header: ["kid": "W6WcOKB", "alg": .string(alg)], signer: .none)
        #expect(error(unsecured) == .unsecuredAlgorithm)
        let parts = Self.token().split(separator: ".")
        let withOriginal = Self.token(header: ["kid": "W6WcOKB", "alg": .string(alg)], signer: .none) + parts[2]
        #expect(error(withOriginal) == .unsecuredAlgorithm)
        #expect(JWTVerifier.verify(Self.token(), jwks: Self.jwks, expectedAlg: .none).failure == .unsecuredAlgorithm)
    }

    @Test("S4: HS256 keyed with the RSA public key (PEM, DER, JWK bytes)")
    func algorithmConfusion() {
        for secret in [Array(Self.appleKey.publicKeyPEM.utf8), Self.appleKey.publicKeyDER, Self.appleKey.publicJWK(kid: "W6WcOKB").jsonBytes()] {
            let forged = Self.token(header: ["kid": "W6WcOKB", "alg": "HS256"], signer: .hmac(secret))
            #expect(error(forged) == .algorithmMismatch(expected: "RS256", found: "HS256"))
        }
    }

    @Test("S5: header says RS512/PS256/rs256 but the signature is valid RS256", arguments: ["RS512", "PS256", "rs256", "RS256 "])
    func headerAlgMismatch(_ alg: String) {
        let token = Self.token(header: ["kid": "W6WcOKB", "alg": .string(alg)])
        #expect(error(token) == .algorithmMismatch(expected: "RS256", found: alg))
    }

    @Test("S6: ES256 with r = s = 0 against an EC JWKS")
    func psychic() {
        let ecKey = try! ECKey(jwk: Vectors.a3Key)
        let set = JWKS(keys: [ecKey.publicJWK(kid: "ec")])
        let header: JSONObject = ["alg": "ES256", "kid": "ec"]
        let input = JWS.signingInput(header: header.jsonBytes(), payload: Self.claims.jsonBytes())
        let forged = String(decoding: input, as: UTF8.self) + "." + Base64URL.encode([UInt8](repeating: 0, count: 64))
        #expect(JWTVerifier.verify(forged, jwks: set, expectedAlg: .ES256).failure == .badSignature)
        let real = Self.token(header: header, signer: .ec(ecKey))
        #expect(JWTVerifier.verify(real, jwks: set, expectedAlg: .ES256).failure == nil)
        let der = String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(try! ecKey.signDER(input))
        #expect(JWTVerifier.verify(der, jwks: set, expectedAlg: .ES256).failure == .badSignature, "DER-encoded ES256 is a defect")
    }

    @Test("S7/S8: embedded jwk, jku, x5u, x5c headers are refused even with a valid signature")
    func keyInjection() {
        let attacker = Self.otherKey.publicJWK(kid: "W6WcOKB")
        #expect(error(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "jwk": .object(attacker.jsonObject)], signer: .rsa(Self.otherKey, .RS256))) == .forbiddenHeader("jwk"))
        #expect(error(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "jku": "https://checker.invalid/jwks"])) == .forbiddenHeader("jku"))
        #expect(error(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "x5u": "https://checker.invalid/cert"])) == .forbiddenHeader("x5u"))
        #expect(error(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "x5c": ["MIIB"]])) == .forbiddenHeader("x5c"))
    }

    @Test("S9/S10: hostile or unknown kid never falls back to another key",
          arguments: ["../../dev/null", "' OR '1'='1", String(repeating: "k", count: 10_000), "W6WcOKB\u{0}", "Ẃ6WcOKB", "w6wcokb", ""])
    func unknownKid(_ kid: String) {
        #expect(error(Self.token(header: ["kid": .string(kid), "alg": "RS256"])) == .unknownKeyID(kid))
    }

    @Test("missing kid, duplicate usable kids, and JWKS with only unusable keys")
    func kidEdges() {
        #expect(error(Self.token(header: ["alg": "RS256"])) == .missingKeyID)
        #expect(error(Self.token(header: ["alg": "RS256", "kid": 7])) == .missingKeyID)
        let twice = JWKS(keys: [Self.appleKey.publicJWK(kid: "a"), Self.otherKey.publicJWK(kid: "a")])
        #expect(error(Self.token(header: ["alg": "RS256", "kid": "a"]), jwks: twice) == .ambiguousKeyID("a"))
        let unusable = JWKS(keys: [Self.appleKey.publicJWK(kid: "W6WcOKB", alg: "RS512"), Self.appleKey.publicJWK(kid: "W6WcOKB", use: "enc")])
        #expect(error(Self.token(), jwks: unusable) == .unknownKeyID("W6WcOKB"))
    }

    @Test("S11: crit with an unknown extension, malformed crit, and an understood one")
    func crit() {
        #expect(error(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "crit": ["x-unknown"], "x-unknown": 1])) == .unsupportedCritical(["x-unknown"]))
        #expect(error(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "crit": []])) == .unsupportedCritical(["<malformed crit>"]))
        #expect(error(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "crit": "b64"])) == .unsupportedCritical(["<malformed crit>"]))
        let verifier = JWTVerifier(expectedAlgorithm: .RS256, understoodCriticalHeaders: ["exp-ext"])
        #expect(verifier.verify(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "crit": ["exp-ext"], "exp-ext": true]), jwks: Self.jwks).failure == nil)
        #expect(verifier.verify(Self.token(header: ["kid": "W6WcOKB", "alg": "RS256", "crit": ["exp-ext"]]), jwks: Self.jwks).failure == .unsupportedCritical(["exp-ext"]), "listed but absent")
    }

    @Test("S12: malformed compact forms")
    func malformed() {
        let good = Self.token()
        let parts = good.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(error("\(parts[0]).\(parts[1])") == .malformed(.wrongSegmentCount(2)))
        #expect(error(good + ".x") == .malformed(.wrongSegmentCount(4)))
        #expect(error("a.b.c.d.e") == .malformed(.wrongSegmentCount(5)))
        #expect(error("\(parts[0])=.\(parts[1]).\(parts[2])") == .malformed(.badBase64(segment: "header")))
        #expect(error("\(parts[0]).\(parts[1]).+\(parts[2].dropFirst())") == .malformed(.badBase64(segment: "signature")))
        #expect(error("\(parts[0]).\(parts[1]).\(parts[2].dropLast())/") == .malformed(.badBase64(segment: "signature")))
        #expect(error("\(parts[0]).\(parts[1]).\(parts[2])\n") == .malformed(.badBase64(segment: "signature")))
        #expect(error("\(parts[0]).\(parts[1])=.\(parts[2])") == .malformed(.badBase64(segment: "payload")))
        #expect(error("\(Base64URL.encode(Array("not json".utf8))).\(parts[1]).\(parts[2])") == .malformed(.headerNotJSON))
        #expect(error("\(Base64URL.encode(Array("[1]".utf8))).\(parts[1]).\(parts[2])") == .malformed(.headerNotObject))
        let dupHeader = Base64URL.encode(Array(#"{"alg":"none","alg":"RS256","kid":"W6WcOKB"}"#.utf8))
        #expect(error("\(dupHeader).\(parts[1]).\(parts[2])") == .malformed(.duplicateMember("alg")))
        #expect(throws: JWSError.wrongSegmentCount(1)) { try JWS.parse("") }
        // "." + U+0301 is a single Character but still a separator byte.
        #expect(throws: JWSError.badBase64(segment: "payload")) { try JWS.parse("e30.\u{301}.") }
    }

    @Test("C16: duplicate claims are caught even with a valid signature; non-object payload")
    func duplicateClaims() {
        var payload = Self.claims
        payload.append("aud", "com.attacker.app")
        let token = Self.token(payload: payload)
        #expect(error(token) == .payloadNotJSONObject(.duplicateMember("aud")))
        let parsed = try! JWS.parse(token)
        #expect(parsed.payload == nil && parsed.payloadError == .duplicateMember("aud"))
        #expect(error(try! JWS.sign(header: Array(#"{"kid":"W6WcOKB","alg":"RS256"}"#.utf8), payload: Array("[1]".utf8), signer: .rsa(Self.appleKey, .RS256))) == .payloadNotJSONObject(nil))
    }

    /// The leniencies the mock backend's defects use: duplicate names kept first or last, and
    /// canonical `=` padding with the signing input as sent. The strict parse refuses both.
    @Test func leniencies() throws {
        let text = Array(#"{"aud":"ours","aud":"theirs","sub":"s"}"#.utf8)
        #expect(throws: JSONError.duplicateMember("aud")) { try StrictJSON.parse(text) }
        #expect(try StrictJSON.parseObject(text, duplicates: .firstWins)?.string("aud") == "ours")
        let last = try #require(try StrictJSON.parseObject(text, duplicates: .lastWins))
        #expect(last.string("aud") == "theirs" && last.members.map(\.name) == ["aud", "sub"])

        let parts = Self.token().split(separator: ".").map(String.init)
        let padded = "\(parts[0]).\(parts[1]).\(parts[2])=="
        #expect(throws: JWSError.badBase64(segment: "signature")) { try JWS.parse(padded) }
        let lenient = try JWS.parse(padded, leniency: .init(padding: true))
        #expect(lenient.signingInput == Array("\(parts[0]).\(parts[1])".utf8))
        #expect(lenient.signature == Base64URL.decode(parts[2]))
        // Non-canonical padding (a length that is not a multiple of 4) stays refused.
        #expect(throws: JWSError.badBase64(segment: "signature")) { try JWS.parse(padded + "=", leniency: .init(padding: true)) }
    }

    @Test("keys are shared across concurrent tasks")
    func concurrency() async throws {
        let key = Self.appleKey
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    var payload = Self.claims
                    payload["jti"] = .int(Int64(index))
                    let token = Self.token(payload: payload, signer: .rsa(key, .RS256))
                    return JWTVerifier.verify(token, jwks: Self.jwks).failure == nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }

    @Test("RSA keys below 2048 bits are refused")
    func smallKey() throws {
        let small = try RSAKey.generate(bits: 1024)
        let set = JWKS(keys: [small.publicJWK(kid: "s")])
        #expect(error(Self.token(header: ["alg": "RS256", "kid": "s"], signer: .rsa(small, .RS256)), jwks: set) == .keyTooSmall(bits: 1024))
    }

    @Test("JWKS JSON: strict parse, odd entries skipped, roundtrip")
    func jwksJSON() throws {
        let json = #"{"keys":[{"kty":"oct","k":"c2VjcmV0"},{"kid":"nokty"},42,{"kty":"RSA","kid":"W6WcOKB","use":"sig","alg":"RS256","n":"\#(Vectors.a2Key.n!)","e":"AQAB","x5c":["MIIB"]}]}"#
        let (set, skipped) = try JWKS.decode(json: Array(json.utf8))
        #expect(skipped == 2)
        #expect(set.keys.count == 2)
        #expect(try JWKS(json: set.jsonBytes()) == set)
        #expect(throws: JWKError.json(.duplicateMember("keys"))) { try JWKS(json: Array(#"{"keys":[],"keys":[]}"#.utf8)) }
        #expect(throws: JWKError.keysNotAnArray) { try JWKS(json: Array(#"{"keys":{}}"#.utf8)) }
        #expect(try verify(Self.token(), jwks: set).get().key.kid == "W6WcOKB")
        // Foundation Codable agrees on the wire form.
        #expect(try JSONDecoderShim.decode(set.jsonBytes()) == set)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}

import Foundation

enum JSONDecoderShim {
    static func decode(_ bytes: [UInt8]) throws -> JWKS { try JSONDecoder().decode(JWKS.self, from: Data(bytes)) }
}
