import Testing
@testable import JOSE

@Suite("RFC 7515 Appendix A and RFC 7638")
struct RFCVectorTests {
    @Test("A.1 HS256: parse, recompute the HMAC byte for byte, verify")
    func a1() throws {
        let parsed = try JWS.parse(Vectors.a1Compact)
        #expect(parsed.headerBytes == Vectors.a1Header)
        #expect(parsed.payloadBytes == Vectors.payloadBytes)
        #expect(parsed.signature == Vectors.a1SignatureBytes)
        #expect(parsed.algorithm == "HS256")
        #expect(parsed.header.string("typ") == "JWT")
        #expect(parsed.payload?["exp"] == .int(1_300_819_380))
        #expect(parsed.payload?["http://example.com/is_root"] == .bool(true))

        let k = try #require(Vectors.a1Key.k)
        let key = try #require(Base64URL.decode(k))
        #expect(Digest.hmacSHA256(key: key, data: parsed.signingInput) == Vectors.a1SignatureBytes)
        #expect(parsed.verifySignature(algorithm: .HS256, key: .hmac(key)))
        #expect(!parsed.verifySignature(algorithm: .HS256, key: .hmac(key + [0])))
        // Rebuilding from the exact bytes reproduces the compact form.
        #expect(try JWS.sign(header: Vectors.a1Header, payload: Vectors.payloadBytes, signer: .hmac(key)) == Vectors.a1Compact)
    }

    @Test("A.2 RS256: the signature reproduces byte for byte")
    func a2() throws {
        let key = try RSAKey(jwk: Vectors.a2Key)
        #expect(key.hasPrivateKey)
        #expect(key.bits == 2048)
        #expect(JWS.signingInput(header: Vectors.a2Header, payload: Vectors.payloadBytes) == Array(Vectors.a2SigningInput.utf8))
        let signature = try key.sign(Array(Vectors.a2SigningInput.utf8), algorithm: .RS256)
        #expect(Base64URL.encode(signature) == Vectors.a2Signature)
        let compact = try JWS.sign(header: Vectors.a2Header, payload: Vectors.payloadBytes, signer: .rsa(key, .RS256))
        #expect(compact == Vectors.a2Compact)

        let parsed = try JWS.parse(Vectors.a2Compact)
        let publicKey = try RSAKey(jwk: Vectors.a2Key.publicOnly)
        #expect(!publicKey.hasPrivateKey)
        #expect(parsed.verifySignature(algorithm: .RS256, key: .rsa(publicKey)))
        #expect(!parsed.verifySignature(algorithm: .RS512, key: .rsa(publicKey)))
        #expect(!parsed.verifySignature(algorithm: .PS256, key: .rsa(publicKey)))
    }

    @Test("A.2 key: RS384 is deterministic too (vector from Python cryptography)")
    func rs384() throws {
        let key = try RSAKey(jwk: Vectors.a2Key)
        #expect(Base64URL.encode(try key.sign(Array(Vectors.a2SigningInput.utf8), algorithm: .RS384)) == Vectors.a2RS384)
    }

    @Test("A.2 key without CRT members (n, e, d only) still signs identically")
    func a2WithoutCRT() throws {
        var jwk = Vectors.a2Key
        (jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi) = (nil, nil, nil, nil, nil)
        let key = try RSAKey(jwk: jwk)
        #expect(Base64URL.encode(try key.sign(Array(Vectors.a2SigningInput.utf8), algorithm: .RS256)) == Vectors.a2Signature)
    }

    @Test("A.3 ES256: verify the RFC signature; sign+verify roundtrip")
    func a3() throws {
        let key = try ECKey(jwk: Vectors.a3Key)
        let input = Array(Vectors.a3SigningInput.utf8)
        let signature = try #require(Base64URL.decode(Vectors.a3Signature))
        #expect(signature.count == 64)
        #expect(key.verify(signature, for: input))
        let parsed = try JWS.parse(Vectors.a3SigningInput + "." + Vectors.a3Signature)
        #expect(parsed.verifySignature(algorithm: .ES256, key: .ec(try ECKey(jwk: Vectors.a3Key.publicOnly))))

        var tampered = signature
        tampered[5] ^= 1
        #expect(!key.verify(tampered, for: input))
        #expect(!key.verify(signature, for: input + [0x2E]))

        let fresh = try key.sign(input)
        #expect(fresh.count == 64)
        #expect(key.verify(fresh, for: input))
        #expect(try key.sign(input) != fresh, "ECDSA is randomized")
    }

    @Test("A.5 unsecured JWS parses, has an empty signature, and never verifies")
    func a5() throws {
        let parsed = try JWS.parse(Vectors.a5Compact)
        #expect(parsed.algorithm == "none")
        #expect(parsed.signature.isEmpty)
        #expect(parsed.payloadBytes == Vectors.payloadBytes)
        #expect(try JWS.sign(header: Array("{\"alg\":\"none\"}".utf8), payload: Vectors.payloadBytes, signer: .none) == Vectors.a5Compact)
        #expect(!parsed.verifySignature(algorithm: .none, key: .hmac([])))
        #expect(!parsed.verifySignature(algorithm: .HS256, key: .hmac([])), "empty HMAC key must not match an empty signature")
    }

    @Test("RFC 7638 §3.1 thumbprint, from the JWK and from the key's exported JWK")
    func thumbprint() throws {
        #expect(Vectors.rfc7638Key.thumbprint() == Vectors.rfc7638Thumbprint)
        let key = try RSAKey(jwk: Vectors.rfc7638Key)
        #expect(key.publicJWK(kid: nil).thumbprint() == Vectors.rfc7638Thumbprint)
        // Optional members do not change it.
        var decorated = Vectors.rfc7638Key
        decorated.use = "sig"
        decorated.kid = "other"
        #expect(decorated.thumbprint() == Vectors.rfc7638Thumbprint)
    }
}
