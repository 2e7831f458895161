import COpenSSL

/// An RSA key (public, or private with CRT parameters) held as an OpenSSL EVP_PKEY.
/// Signs and verifies RS256/384/512 (PKCS#1 v1.5, deterministic) and PS256/384/512
/// (PSS, salt = hash length, MGF1 with the same hash). Immutable after creation,
/// so safe to share across tasks.
// @unchecked: an EVP_PKEY pointer is not Sendable to the compiler; the key is never mutated after
// creation and OpenSSL 3 allows concurrent sign/verify on one EVP_PKEY.
public final class RSAKey: @unchecked Sendable {
    let pkey: OpaquePointer

    init(adopting pkey: OpaquePointer) throws(JOSEError) {
        guard OpenSSL.isA(pkey, "RSA") else {
            EVP_PKEY_free(pkey)
            throw .invalidKey("not an RSA key")
        }
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }

    /// A fresh key from OpenSSL's CSPRNG, public exponent 65537. `primes` above 2 makes a
    /// multi-prime key (RFC 8017 §3): its public half (n, e) and its RS256 signatures are those of
    /// any RSA key — a verifier cannot tell. A multi-prime key's `privateJWK` lacks the `oth`
    /// member, so such keys are for signing in this process, not for export.
    ///
    /// Two primes come from OpenSSL's `EVP_PKEY_generate`; more from `PrimeSearch` (sieved
    /// harder and confirmed with fewer Miller-Rabin rounds than OpenSSL 3 allows, and not held
    /// to OpenSSL's cap of 3 primes below 4096 bits: docs/check.md, "Keys").
    public static func generate(bits: Int = 2048, primes: Int = 2) throws(JOSEError) -> RSAKey {
        if primes > 2 { return try generateMultiPrime(bits: bits, count: primes) }
        let ctx = try OpenSSL.newContext(keyType: "RSA")
        defer { EVP_PKEY_CTX_free(ctx) }
        try OpenSSL.check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
        try OpenSSL.check(EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        var pkey: OpaquePointer?
        try OpenSSL.check(EVP_PKEY_generate(ctx, &pkey), "EVP_PKEY_generate")
        guard let pkey else { throw OpenSSL.failure("EVP_PKEY_generate") }
        return try RSAKey(adopting: pkey)
    }

    /// From a JWK with `kty` "RSA": `n`,`e` (public); plus `d` and either all of
    /// `p`,`q`,`dp`,`dq`,`qi` or none of them (private). Private keys are checked
    /// for consistency.
    public convenience init(jwk: JWK) throws(JOSEError) {
        guard jwk.kty == "RSA" else { throw .invalidKey("kty is \"\(jwk.kty)\", expected \"RSA\"") }
        func bytes(_ value: String?, _ name: String) throws(JOSEError) -> [UInt8]? {
            guard let value else { return nil }
            guard let decoded = Base64URL.decode(value), !decoded.isEmpty else { throw .invalidKey("\(name) is not base64url") }
            return decoded
        }
        guard let n = try bytes(jwk.n, "n"), let e = try bytes(jwk.e, "e") else { throw .invalidKey("n and e are required") }
        let d = try bytes(jwk.d, "d")
        let crt = [try bytes(jwk.p, "p"), try bytes(jwk.q, "q"), try bytes(jwk.dp, "dp"), try bytes(jwk.dq, "dq"), try bytes(jwk.qi, "qi")]
        let crtCount = crt.compactMap { $0 }.count
        if d == nil && crtCount > 0 { throw .invalidKey("CRT parameters without d") }
        if crtCount != 0 && crtCount != 5 { throw .invalidKey("p, q, dp, dq, qi must be given together") }

        let pkey = try OpenSSL.pkeyFromData(type: "RSA", selection: d == nil ? OpenSSL.selectPublicKey : OpenSSL.selectKeyPair) { builder throws(JOSEError) in
            try builder.bignum("n", n)
            try builder.bignum("e", e)
            if let d { try builder.bignum("d", d) }
            if crtCount == 5, let p = crt[0], let q = crt[1], let dp = crt[2], let dq = crt[3], let qi = crt[4] {
                try builder.bignum("rsa-factor1", p)
                try builder.bignum("rsa-factor2", q)
                try builder.bignum("rsa-exponent1", dp)
                try builder.bignum("rsa-exponent2", dq)
                try builder.bignum("rsa-coefficient1", qi)
            }
        }
        try self.init(adopting: pkey)
        if d != nil && crtCount == 5 { try OpenSSL.pairwiseCheck(pkey) }
    }

    /// From PEM: "PUBLIC KEY" (SubjectPublicKeyInfo), "PRIVATE KEY" (PKCS#8) or
    /// "RSA PRIVATE KEY" (PKCS#1). Unencrypted only.
    public convenience init(pem: String) throws(JOSEError) {
        try self.init(adopting: OpenSSL.parsePEM(pem))
    }

    /// From DER SubjectPublicKeyInfo (what `publicKeyDER` produces).
    public convenience init(publicKeyDER: [UInt8]) throws(JOSEError) {
        try self.init(adopting: OpenSSL.parsePublicDER(publicKeyDER))
    }

    public var hasPrivateKey: Bool { OpenSSL.hasParam(pkey, "d") }

    /// Modulus size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

    /// `kty`,`kid`,`use`,`alg`,`n`,`e`. Pass nil to leave a member out.
    public func publicJWK(kid: String?, alg: String? = "RS256", use: String? = "sig") -> JWK {
        JWK(kty: "RSA", kid: kid, use: use, alg: alg,
            n: OpenSSL.bnParam(pkey, "n").map(Base64URL.encode), e: OpenSSL.bnParam(pkey, "e").map(Base64URL.encode))
    }

    /// Public members plus `d`,`p`,`q`,`dp`,`dq`,`qi` (only those OpenSSL holds).
    /// Contains secrets: never log it.
    public func privateJWK(kid: String?, alg: String? = "RS256", use: String? = "sig") -> JWK {
        var jwk = publicJWK(kid: kid, alg: alg, use: use)
        func member(_ name: String) -> String? { OpenSSL.bnParam(pkey, name).map(Base64URL.encode) }
        jwk.d = member("d")
        jwk.p = member("rsa-factor1")
        jwk.q = member("rsa-factor2")
        jwk.dp = member("rsa-exponent1")
        jwk.dq = member("rsa-exponent2")
        jwk.qi = member("rsa-coefficient1")
        return jwk
    }

    /// SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----").
    public var publicKeyPEM: String { (try? OpenSSL.pem(pkey, privateKey: false)) ?? "" }
    /// SubjectPublicKeyInfo DER.
    public var publicKeyDER: [UInt8] { (try? OpenSSL.publicDER(pkey)) ?? [] }
    /// PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"); throws for a public key. Secret: never log it.
    public func privateKeyPEM() throws(JOSEError) -> String {
        guard hasPrivateKey else { throw .missingPrivateKey }
        return try OpenSSL.pem(pkey, privateKey: true)
    }

    public func sign(_ data: [UInt8], algorithm: JWSAlgorithm) throws(JOSEError) -> [UInt8] {
        guard algorithm.isRSA else { throw .algorithmKeyMismatch(algorithm: algorithm, key: "RSA") }
        guard hasPrivateKey else { throw .missingPrivateKey }
        return try OpenSSL.signDigest(pkey, md: OpenSSL.digest(for: algorithm), data: data) { pctx throws(JOSEError) in
            if algorithm.isPSS {
                try OpenSSL.check(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
                try OpenSSL.check(EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST), "EVP_PKEY_CTX_set_rsa_pss_saltlen")
            }
        }
    }

    /// True only for a signature of exactly the modulus length that verifies under
    /// `algorithm`; PSS requires salt length = hash length.
    public func verify(_ signature: [UInt8], for data: [UInt8], algorithm: JWSAlgorithm) -> Bool {
        guard algorithm.isRSA, signature.count == Int(EVP_PKEY_get_size(pkey)) else { return false }
        return OpenSSL.verifyDigest(pkey, md: OpenSSL.digest(for: algorithm), signature: signature, data: data) { pctx in
            guard algorithm.isPSS else { return true }
            return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1
        }
    }
}
