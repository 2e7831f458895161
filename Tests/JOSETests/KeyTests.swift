import Testing
import COpenSSL
@testable import JOSE

@Suite("Keys and signatures")
struct KeyTests {
    static let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0".utf8)

    @Test("ES256 rejects r = 0 or s = 0 (CVE-2022-21449), r or s ≥ n, and wrong lengths")
    func ecdsaPsychicSignature() throws {
        let key = try ECKey(jwk: Vectors.a3Key)
        let input = Array(Vectors.a3SigningInput.utf8)
        let good = try #require(Base64URL.decode(Vectors.a3Signature))
        #expect(key.verify(good, for: input))
        #expect(!key.verify([UInt8](repeating: 0, count: 64), for: input))
        #expect(!key.verify([UInt8](repeating: 0, count: 32) + good[32...], for: input))
        #expect(!key.verify(Array(good[..<32]) + [UInt8](repeating: 0, count: 32), for: input))
        #expect(!key.verify(ECKey.order + Array(good[32...]), for: input))
        #expect(!key.verify([UInt8](repeating: 0xFF, count: 64), for: input))
        #expect(!key.verify(Array(good.dropLast()), for: input))
        #expect(!key.verify(good + [0], for: input))
        #expect(!key.verify([], for: input))
        #expect(!key.verify(Vectors.hex(Vectors.a3SignatureDERHex), for: input), "DER is not a JOSE signature")
        // The "none"-style forged token: same header, r = s = 0.
        let forged = Vectors.a3SigningInput + "." + Base64URL.encode([UInt8](repeating: 0, count: 64))
        #expect(!(try JWS.parse(forged)).verifySignature(algorithm: .ES256, key: .ec(key)))
    }

    @Test("DER ↔ raw: RFC A.3 signature both ways, and OpenSSL's DER")
    func derRaw() throws {
        let raw = try #require(Base64URL.decode(Vectors.a3Signature))
        let der = Vectors.hex(Vectors.a3SignatureDERHex)
        #expect(try ECDSASignature.derFromRaw(raw) == der)
        #expect(try ECDSASignature.rawFromDER(der) == raw)

        // Short integers: r = 1, s = 0x80 (needs a 0x00 prefix).
        let small = [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [0x80]
        #expect(try ECDSASignature.derFromRaw(small) == [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80])
        #expect(try ECDSASignature.rawFromDER([0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80]) == small)

        let key = try ECKey.generate()
        for _ in 0..<20 {
            let fromOpenSSL = try key.signDER(Self.message)
            let converted = try ECDSASignature.rawFromDER(fromOpenSSL)
            #expect(converted.count == 64)
            #expect(try ECDSASignature.derFromRaw(converted) == fromOpenSSL)
            #expect(key.verify(converted, for: Self.message))
        }
    }

    @Test("strict DER parsing", arguments: [
        "3006020101020101ff",          // trailing byte
        "3007020101020101",            // sequence length too long
        "300602020001020101",          // non-minimal r (0x00 0x01)
        "3006020181020101",            // negative r
        "31060201010201 01",           // not a SEQUENCE
        "3081060201010201 01",         // non-minimal length form
        "3003020101",                  // missing s
    ])
    func strictDER(_ hex: String) {
        #expect(throws: JOSEError.self) { try ECDSASignature.rawFromDER(Vectors.hex(hex.replacingOccurrences(of: " ", with: ""))) }
    }

    @Test("RSA PEM and DER export parse back to the same key; PEM matches Python's")
    func rsaExport() throws {
        let key = try RSAKey(jwk: Vectors.a2Key)
        #expect(key.publicKeyPEM == Vectors.a2PublicPEM)
        let fromPEM = try RSAKey(pem: key.publicKeyPEM)
        let fromDER = try RSAKey(publicKeyDER: key.publicKeyDER)
        #expect(!fromPEM.hasPrivateKey)
        #expect(fromPEM.publicJWK(kid: nil) == key.publicJWK(kid: nil))
        #expect(fromDER.publicJWK(kid: nil) == key.publicJWK(kid: nil))
        #expect(fromPEM.publicKeyDER == key.publicKeyDER)
        let signature = try #require(Base64URL.decode(Vectors.a2Signature))
        #expect(fromDER.verify(signature, for: Array(Vectors.a2SigningInput.utf8), algorithm: .RS256))

        let privatePEM = try key.privateKeyPEM()
        #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try RSAKey(pem: privatePEM)
        #expect(reloaded.hasPrivateKey)
        #expect(reloaded.privateJWK(kid: nil, alg: nil, use: nil) == Vectors.a2Key)
        #expect(!reloaded.privateJWK(kid: nil).description.contains(Vectors.a2Key.d!), "description redacts secrets")
        #expect(throws: JOSEError.missingPrivateKey) { try fromPEM.privateKeyPEM() }
        #expect(throws: JOSEError.self) { try RSAKey(publicKeyDER: key.publicKeyDER + [0]) }
        #expect(throws: JOSEError.self) { try RSAKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
    }

    @Test("EC PEM and DER export parse back; SEC1 PEM from Python loads as the A.3 key")
    func ecExport() throws {
        let key = try ECKey(pem: Vectors.a3PrivatePEM)
        #expect(key.hasPrivateKey)
        #expect(key.privateJWK(kid: nil) == Vectors.a3Key)
        #expect(key.publicJWK(kid: "k") == JWK(kty: "EC", kid: "k", crv: "P-256", x: Vectors.a3Key.x, y: Vectors.a3Key.y))
        #expect(key.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try ECKey(pem: key.privateKeyPEM)
        #expect(reloaded.privateJWK(kid: nil) == Vectors.a3Key)
        let publicOnly = try ECKey(pem: key.publicKeyPEM)
        #expect(!publicOnly.hasPrivateKey)
        #expect(publicOnly.privateKeyPEM == "")
        #expect(try ECKey(publicKeyDER: key.publicKeyDER).publicJWK(kid: nil) == key.publicJWK(kid: nil))
        #expect(throws: JOSEError.missingPrivateKey) { try publicOnly.sign(Self.message) }
        // An RSA PEM is not an EC key and vice versa.
        #expect(throws: JOSEError.self) { try ECKey(pem: Vectors.a2PublicPEM) }
        #expect(throws: JOSEError.self) { try RSAKey(pem: key.publicKeyPEM) }
    }

    @Test("JWK import validation")
    func jwkValidation() throws {
        var offCurve = Vectors.a3Key.publicOnly
        offCurve.y = Vectors.a3Key.x
        #expect(throws: JOSEError.self) { try ECKey(jwk: offCurve) }
        var wrongD = Vectors.a3Key
        wrongD.d = "AQ" + String(Vectors.a3Key.d!.dropFirst(2))
        #expect(throws: JOSEError.self) { try ECKey(jwk: wrongD) }
        var short = Vectors.a3Key.publicOnly
        short.x = Base64URL.encode(Base64URL.decode(Vectors.a3Key.x!)!.dropFirst())
        #expect(throws: JOSEError.self) { try ECKey(jwk: short) }
        var otherCurve = Vectors.a3Key
        otherCurve.crv = "P-384"
        #expect(throws: JOSEError.self) { try ECKey(jwk: otherCurve) }
        var mismatchedRSA = Vectors.a2Key
        mismatchedRSA.qi = mismatchedRSA.dp
        #expect(throws: JOSEError.self) { try RSAKey(jwk: mismatchedRSA) }
        var partialCRT = Vectors.a2Key
        partialCRT.qi = nil
        #expect(throws: JOSEError.self) { try RSAKey(jwk: partialCRT) }
        #expect(throws: JOSEError.self) { try RSAKey(jwk: Vectors.a3Key) }
        var padded = Vectors.a2Key.publicOnly
        padded.e = "AQAB=="
        #expect(throws: JOSEError.self) { try RSAKey(jwk: padded) }
    }

    @Test("generated keys are distinct, with distinct thumbprint kids, and sign")
    func generation() throws {
        let rsa1 = try RSAKey.generate(bits: 2048)
        let rsa2 = try RSAKey.generate(bits: 2048)
        #expect(rsa1.bits == 2048)
        let kid1 = rsa1.publicJWK(kid: nil).thumbprint()
        let kid2 = rsa2.publicJWK(kid: nil).thumbprint()
        #expect(kid1.count == 43)
        #expect(kid1 != kid2)
        let ec1 = try ECKey.generate()
        let ec2 = try ECKey.generate()
        #expect(ec1.publicJWK(kid: nil).thumbprint() != ec2.publicJWK(kid: nil).thumbprint())
        #expect(rsa1.publicJWK(kid: "a") == JWK(kty: "RSA", kid: "a", use: "sig", alg: "RS256", n: rsa1.publicJWK(kid: nil).n, e: "AQAB"))
        // The private JWK round-trips through JWK import and signs identically (RS256 is deterministic).
        let copy = try RSAKey(jwk: rsa1.privateJWK(kid: kid1))
        #expect(try copy.sign(Self.message, algorithm: .RS256) == rsa1.sign(Self.message, algorithm: .RS256))
    }

    @Test("wrong key, wrong algorithm and tampered data all fail verification")
    func wrongKey() throws {
        let rsa = try RSAKey(jwk: Vectors.a2Key)
        let other = try RSAKey.generate()
        let signature = try rsa.sign(Self.message, algorithm: .RS256)
        #expect(rsa.verify(signature, for: Self.message, algorithm: .RS256))
        #expect(!other.verify(signature, for: Self.message, algorithm: .RS256))
        #expect(!rsa.verify(signature, for: Self.message + [0x20], algorithm: .RS256))
        #expect(!rsa.verify(signature, for: Self.message, algorithm: .RS384))
        #expect(!rsa.verify(signature, for: Self.message, algorithm: .ES256))
        #expect(!rsa.verify([0] + signature, for: Self.message, algorithm: .RS256), "length must equal the modulus size")
        #expect(throws: JOSEError.algorithmKeyMismatch(algorithm: .ES256, key: "RSA")) { try rsa.sign(Self.message, algorithm: .ES256) }

        let ec = try ECKey(jwk: Vectors.a3Key)
        let ecOther = try ECKey.generate()
        let ecSignature = try ec.sign(Self.message)
        #expect(!ecOther.verify(ecSignature, for: Self.message))
    }

    @Test("PSS: verifies Python's PS256/PS512, roundtrips, and is not accepted as PKCS#1 v1.5")
    func pss() throws {
        let key = try RSAKey(jwk: Vectors.a2Key.publicOnly)
        let input = Array(Vectors.a2SigningInput.utf8)
        let ps256 = try #require(Base64URL.decode(Vectors.a2PS256))
        let ps512 = try #require(Base64URL.decode(Vectors.a2PS512))
        #expect(key.verify(ps256, for: input, algorithm: .PS256))
        #expect(key.verify(ps512, for: input, algorithm: .PS512))
        #expect(!key.verify(ps256, for: input, algorithm: .RS256))
        #expect(!key.verify(ps256, for: input, algorithm: .PS384))
        #expect(!key.verify(ps512, for: input, algorithm: .PS256))

        let signer = try RSAKey(jwk: Vectors.a2Key)
        for algorithm in [JWSAlgorithm.PS256, .PS384, .PS512] {
            let first = try signer.sign(input, algorithm: algorithm)
            #expect(key.verify(first, for: input, algorithm: algorithm))
            #expect(try signer.sign(input, algorithm: algorithm) != first, "PSS is randomized")
        }
        #expect(!key.verify(try signer.sign(input, algorithm: .RS256), for: input, algorithm: .PS256))
    }

    @Test("digests and HMAC match published values")
    func digests() {
        #expect(Digest.sha256(Array("abc".utf8)) == Vectors.hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(Digest.sha384(Array("abc".utf8)) == Vectors.hex("cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"))
        #expect(Digest.sha512(Array("abc".utf8)).prefix(8) == [0xdd, 0xaf, 0x35, 0xa1, 0x93, 0x61, 0x7a, 0xba])
        // FIPS 180-2's vectors for SHA-256 (low-level functions, not EVP): the empty input,
        // and a million 'a's, whole and in parts that cut its 64-byte blocks anywhere.
        #expect(Digest.sha256([UInt8]()) == Vectors.hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let millionDigest = Vectors.hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(Digest.sha256(million) == millionDigest)
        million.withUnsafeBytes { bytes in
            let cut1 = UnsafeRawBufferPointer(rebasing: bytes[0..<63])
            let cut2 = UnsafeRawBufferPointer(rebasing: bytes[63..<64])
            let cut3 = UnsafeRawBufferPointer(rebasing: bytes[64..<500_001])
            let rest = UnsafeRawBufferPointer(rebasing: bytes[500_001...])
            #expect(Digest.sha256(parts: cut1, UnsafeRawBufferPointer(start: nil, count: 0), cut2, cut3, rest) == millionDigest)
        }
        // RFC 4231 test case 2.
        #expect(Digest.hmacSHA256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
            == Vectors.hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        #expect(Digest.hmacSHA256(key: [], data: []) == Vectors.hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
    }

    @Test("SeededRandom is reproducible; SystemRandom is not constant")
    func randomness() {
        let a = SeededRandom(seed: 42)
        let b = SeededRandom(seed: 42)
        #expect(a.bytes(5) + a.bytes(40) == b.bytes(45))
        #expect(SeededRandom(seed: 43).bytes(16) != SeededRandom(seed: 42).bytes(16))
        let kid = SeededRandom(seed: 7).keyID()
        #expect(kid.count == 7 && kid.allSatisfy { $0.isLetter || $0.isNumber })
        #expect(kid == SeededRandom(seed: 7).keyID())
        #expect(SystemRandom().bytes(32) != SystemRandom().bytes(32))
        #expect(SystemRandom().bytes(0).isEmpty)
    }

    /// A multi-prime key (the mock providers sign with 4 primes) is an RSA-2048 key like any
    /// other to a verifier: its public JWK alone, reloaded, verifies its RS256 signatures, a
    /// tampered input fails, and the private key really holds that many primes.
    @Test(arguments: [3, 4])
    func multiPrimeKeysSignLikeAnyRSAKey(primes: Int) throws {
        let key = try RSAKey.generate(bits: 2048, primes: primes)
        #expect(key.bits == 2048)
        #expect(OpenSSL.hasParam(key.pkey, "rsa-factor\(primes)"), "prime \(primes)")
        #expect(!OpenSSL.hasParam(key.pkey, "rsa-factor\(primes + 1)"), "no prime \(primes + 1)")
        #expect(!OpenSSL.hasParam(try RSAKey.generate(bits: 2048).pkey, "rsa-factor3"), "two primes by default")
        let verifier = try RSAKey(jwk: key.publicJWK(kid: "k"))
        let signature = try key.sign(Self.message, algorithm: .RS256)
        #expect(signature.count == 256)
        #expect(verifier.verify(signature, for: Self.message, algorithm: .RS256))
        #expect(!verifier.verify(signature, for: Self.message + [0x2E], algorithm: .RS256))
    }

    /// `PrimeSearch`'s keys against OpenSSL's own full check (`EVP_PKEY_check`): every factor
    /// prime by 64 Miller-Rabin rounds, n their product with exactly the bits asked, d, the CRT
    /// exponents and the coefficients consistent. 3 primes at 2048 bits (eight keys: 24 primes,
    /// 8 last ones drawn above the bound that keeps n at 2048 bits), and 4 primes at 4096 bits,
    /// the smallest size at which OpenSSL's cap (`ossl_rsa_multip_cap`) lets its check accept 4:
    /// the same code as the providers' 4-prime RSA-2048 keys, which the next test checks part by part.
    @Test func multiPrimeKeysPassOpenSSLsWholeKeyCheck() throws {
        for (primes, bits, keys) in [(3, 2048, 8), (4, 4096, 2)] {
            for _ in 0..<keys {
                let key = try RSAKey.generate(bits: bits, primes: primes)
                #expect(key.bits == bits)
                #expect(OpenSSL.fullCheck(key.pkey), "OpenSSL's EVP_PKEY_check rejects a generated \(primes)-prime key")
                let factors = (1...primes).compactMap { OpenSSL.bnParam(key.pkey, "rsa-factor\($0)") }
                let size = (bits + primes - 1) / primes
                #expect(factors.map { $0.count * 8 } == (Array(repeating: size, count: primes - 1) + [bits - (primes - 1) * size]).map { ($0 + 7) / 8 * 8 })
                #expect(Set(factors).count == primes)
            }
        }
        // The oracle can say no: the same parameters with the coefficient of p and q inverted
        // the wrong way round (p⁻¹ mod q) make a key OpenSSL loads but its check rejects.
        let key = try RSAKey.generate(bits: 2048, primes: 3)
        let wrong = try OpenSSL.pkeyFromData(type: "RSA", selection: OpenSSL.selectKeyPair) { builder throws(JOSEError) in
            for name: StaticString in ["n", "e", "d", "rsa-factor1", "rsa-factor2", "rsa-factor3", "rsa-exponent1", "rsa-exponent2",
                                       "rsa-exponent3", "rsa-coefficient2"] {
                try builder.bignum(name, OpenSSL.bnParam(key.pkey, "\(name)") ?? [])
            }
            try builder.bignum("rsa-coefficient1", OpenSSL.bnParam(key.pkey, "rsa-factor1") ?? [])
        }
        defer { EVP_PKEY_free(wrong) }
        #expect(!OpenSSL.fullCheck(wrong))
    }

    /// The providers' keys, 4 primes of 512 bits for a 2048-bit n, checked part by part with
    /// OpenSSL's bignum arithmetic (its check refuses more than 3 primes below 4096 bits by
    /// policy, before it looks at a number): each factor prime by `BN_check_prime` (64 rounds),
    /// all distinct, n their product with 2048 bits, e·dᵢ ≡ 1 and d ≡ dᵢ modulo pᵢ − 1, each
    /// coefficient the inverse of the product of the primes before it. Four keys; and one
    /// corrupted part makes the check fail.
    @Test func fourPrimeKeysHoldTogetherPartByPart() throws {
        let ctx = try #require(BN_CTX_new())
        defer { BN_CTX_free(ctx) }
        var numbers: [OpaquePointer] = []
        defer { numbers.forEach { BN_free($0) } }
        func number(_ bytes: [UInt8]) throws -> OpaquePointer {
            let value = try #require(bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
            numbers.append(value)
            return value
        }
        func scratch() throws -> OpaquePointer { try number([]) }
        func parts(_ key: RSAKey) throws -> [String: OpaquePointer] {
            var parts: [String: OpaquePointer] = [:]
            for name in ["n", "e", "d"] + (1...4).flatMap({ ["rsa-factor\($0)", "rsa-exponent\($0)"] }) + (1...3).map({ "rsa-coefficient\($0)" }) {
                parts[name] = try number(try #require(OpenSSL.bnParam(key.pkey, name), "\(name)"))
            }
            return parts
        }
        func holdsTogether(_ parts: [String: OpaquePointer]) throws -> Bool {
            let primes = (1...4).map { parts["rsa-factor\($0)"]! }
            guard let n = parts["n"], let e = parts["e"], let d = parts["d"], BN_num_bits(n) == 2048 else { return false }
            let product = try scratch(), t = try scratch(), u = try scratch()
            BN_set_word(product, 1)
            for (index, prime) in primes.enumerated() {
                guard BN_num_bits(prime) == 512, BN_check_prime(prime, ctx, nil) == 1 else { return false }
                guard !primes[..<index].contains(where: { BN_cmp($0, prime) == 0 }) else { return false }
                let minusOne = try scratch()
                BN_copy(minusOne, prime)
                BN_sub_word(minusOne, 1)
                let exponent = parts["rsa-exponent\(index + 1)"]!
                BN_mod_mul(t, e, exponent, minusOne, ctx)  // e·dᵢ mod (pᵢ − 1)
                guard BN_is_one(t) == 1 else { return false }
                BN_nnmod(t, d, minusOne, ctx)  // d mod (pᵢ − 1) = dᵢ
                guard BN_cmp(t, exponent) == 0 else { return false }
                if index >= 1 {
                    // Coefficient 1 is p₂⁻¹ mod p₁; coefficient i ≥ 2 is (p₁⋯pᵢ)⁻¹ mod pᵢ₊₁.
                    let (inverted, modulus) = index == 1 ? (prime, primes[0]) : (product, prime)
                    BN_mod_mul(u, inverted, parts["rsa-coefficient\(index)"]!, modulus, ctx)
                    guard BN_is_one(u) == 1 else { return false }
                }
                BN_mul(product, product, prime, ctx)
            }
            return BN_cmp(product, n) == 0
        }
        for _ in 0..<4 {
            let key = try RSAKey.generate(bits: 2048, primes: 4)
            #expect(try holdsTogether(parts(key)))
            #expect(!OpenSSL.fullCheck(key.pkey), "OpenSSL's policy: at most 3 primes below 4096 bits")
        }
        // The check can say no: each part, one bit changed.
        let key = try RSAKey.generate(bits: 2048, primes: 4)
        for name in ["d", "rsa-factor3", "rsa-exponent2", "rsa-coefficient1", "rsa-coefficient3"] {
            var corrupted = try parts(key)
            let changed = try scratch()
            BN_copy(changed, corrupted[name]!)
            #expect((BN_is_bit_set(changed, 1) == 1 ? BN_clear_bit(changed, 1) : BN_set_bit(changed, 1)) == 1)
            corrupted[name] = changed
            #expect(try !holdsTogether(corrupted), "a changed \(name) goes unnoticed")
        }
    }

    /// Miller-Rabin as `PrimeSearch` runs it: known primes pass, and composites that fool weaker
    /// tests fail (Carmichael numbers, which pass Fermat's test to every coprime base; strong
    /// pseudoprimes to the bases 2, 3, 5 and 7; a product of two large primes). 32 rounds: a
    /// composite passes one round with probability at most 1/4.
    @Test func millerRabinSeparatesPrimesFromCompositesThatFoolWeakerTests() throws {
        let ctx = try #require(BN_CTX_new())
        defer { BN_CTX_free(ctx) }
        func number(_ decimal: String) throws -> OpaquePointer {
            var bn: OpaquePointer?
            #expect(BN_dec2bn(&bn, decimal) > 0)
            return try #require(bn)
        }
        let mersenne521 = "6864797660130609714981900799081393217269435300143305409394463459185543183397656052122559640661454554977296311391480858037121987999716643812574028291115057151"
        let mersenne127 = "170141183460469231731687303715884105727"
        for prime in ["5", "7", "65537", "2147483647", mersenne127, mersenne521] {
            let n = try number(prime)
            defer { BN_free(n) }
            #expect(try PrimeSearch.isProbablePrime(n, rounds: 32, ctx), "\(prime.prefix(12)) is prime")
        }
        let product = try number(mersenne127), factor = try number(mersenne521)
        defer { BN_free(product); BN_free(factor) }
        #expect(BN_mul(product, product, factor, ctx) == 1)
        let productText = String(cString: try #require(BN_bn2dec(product)))
        for composite in ["9", "561", "41041", "825265", "321197185", "3215031751", "3825123056546413051", productText] {
            let n = try number(composite)
            defer { BN_free(n) }
            #expect(try !PrimeSearch.isProbablePrime(n, rounds: 32, ctx), "\(composite.prefix(12)) is composite")
        }
        // The sieve's divisors: the odd primes below 2^16.
        #expect(PrimeSearch.smallPrimes.count == 6541)
        #expect(PrimeSearch.smallPrimes.prefix(5) == [3, 5, 7, 11, 13] && PrimeSearch.smallPrimes.last == 65521)
    }
}
