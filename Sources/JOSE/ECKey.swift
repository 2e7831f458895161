import COpenSSL

/// A P-256 key (public, or private) held as an OpenSSL EVP_PKEY, for ES256.
/// JOSE signatures are raw `r ‖ s` (64 bytes); `signDER` exists only to mint the
/// DER-encoded defect. Immutable after creation, so safe to share across tasks.
// @unchecked: as RSAKey, an immutable EVP_PKEY that OpenSSL 3 lets threads share.
public final class ECKey: @unchecked Sendable {
    let pkey: OpaquePointer

    static let coordinateSize = 32
    /// Order n of P-256 (SEC 2 §2.4.2), big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    init(adopting pkey: OpaquePointer) throws(JOSEError) {
        guard OpenSSL.isA(pkey, "EC"), Self.isP256(pkey) else {
            EVP_PKEY_free(pkey)
            throw .invalidKey("not a P-256 EC key")
        }
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }

    private static func isP256(_ pkey: OpaquePointer) -> Bool {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pkey, "group", &name, name.count, &length) == 1 else {
            ERR_clear_error()
            return false
        }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256" || group == "secp256r1"
    }

    public static func generate() throws(JOSEError) -> ECKey {
        let ctx = try OpenSSL.newContext(keyType: "EC")
        defer { EVP_PKEY_CTX_free(ctx) }
        try OpenSSL.check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
        try OpenSSL.check(EVP_PKEY_CTX_set_group_name(ctx, "P-256"), "EVP_PKEY_CTX_set_group_name")
        var pkey: OpaquePointer?
        try OpenSSL.check(EVP_PKEY_generate(ctx, &pkey), "EVP_PKEY_generate")
        guard let pkey else { throw OpenSSL.failure("EVP_PKEY_generate") }
        return try ECKey(adopting: pkey)
    }

    /// From a JWK with `kty` "EC", `crv` "P-256", 32-byte `x` and `y` (a point on the
    /// curve), and optionally a 32-byte `d` that must match them.
    public convenience init(jwk: JWK) throws(JOSEError) {
        guard jwk.kty == "EC" else { throw .invalidKey("kty is \"\(jwk.kty)\", expected \"EC\"") }
        guard jwk.crv == "P-256" else { throw .invalidKey("crv must be P-256") }
        func coordinate(_ value: String?, _ name: String) throws(JOSEError) -> [UInt8] {
            guard let value, let bytes = Base64URL.decode(value) else { throw .invalidKey("\(name) missing or not base64url") }
            guard bytes.count == Self.coordinateSize else { throw .invalidKey("\(name) must be \(Self.coordinateSize) bytes") }
            return bytes
        }
        let x = try coordinate(jwk.x, "x")
        let y = try coordinate(jwk.y, "y")
        let d = try jwk.d.map { value throws(JOSEError) in try coordinate(value, "d") }
        let pkey = try OpenSSL.pkeyFromData(type: "EC", selection: d == nil ? OpenSSL.selectPublicKey : OpenSSL.selectKeyPair) { builder throws(JOSEError) in
            try builder.utf8String("group", "P-256")
            try builder.octetString("pub", [0x04] + x + y)
            if let d { try builder.bignum("priv", d) }
        }
        try self.init(adopting: pkey)
        try OpenSSL.publicCheck(pkey)
        if d != nil { try OpenSSL.pairwiseCheck(pkey) }
    }

    /// From PEM: "PUBLIC KEY", "PRIVATE KEY" (PKCS#8, e.g. Apple's .p8) or "EC PRIVATE KEY".
    public convenience init(pem: String) throws(JOSEError) {
        try self.init(adopting: OpenSSL.parsePEM(pem))
    }

    /// From DER SubjectPublicKeyInfo.
    public convenience init(publicKeyDER: [UInt8]) throws(JOSEError) {
        try self.init(adopting: OpenSSL.parsePublicDER(publicKeyDER))
    }

    public var hasPrivateKey: Bool { OpenSSL.hasParam(pkey, "priv") }

    public func publicJWK(kid: String?) -> JWK {
        JWK(kty: "EC", kid: kid, crv: "P-256",
            x: OpenSSL.bnParam(pkey, "qx", length: Self.coordinateSize).map(Base64URL.encode),
            y: OpenSSL.bnParam(pkey, "qy", length: Self.coordinateSize).map(Base64URL.encode))
    }

    /// Includes `d`. Secret: never log it.
    public func privateJWK(kid: String?) -> JWK {
        var jwk = publicJWK(kid: kid)
        jwk.d = OpenSSL.bnParam(pkey, "priv", length: Self.coordinateSize).map(Base64URL.encode)
        return jwk
    }

    public var publicKeyPEM: String { (try? OpenSSL.pem(pkey, privateKey: false)) ?? "" }
    public var publicKeyDER: [UInt8] { (try? OpenSSL.publicDER(pkey)) ?? [] }
    /// PKCS#8 PEM, the format of Apple's .p8 files; "" for a public key. Secret: never log it.
    public var privateKeyPEM: String {
        guard hasPrivateKey else { return "" }
        return (try? OpenSSL.pem(pkey, privateKey: true)) ?? ""
    }

    /// ES256 signature as JOSE wants it: raw 64-byte `r ‖ s`. Randomized.
    public func sign(_ data: [UInt8]) throws(JOSEError) -> [UInt8] {
        try ECDSASignature.rawFromDER(signDER(data), coordinateSize: Self.coordinateSize)
    }

    /// The same signature DER-encoded, which a JOSE verifier must reject.
    public func signDER(_ data: [UInt8]) throws(JOSEError) -> [UInt8] {
        guard hasPrivateKey else { throw .missingPrivateKey }
        return try OpenSSL.signDigest(pkey, md: EVP_sha256(), data: data)
    }

    /// Verifies a raw 64-byte `r ‖ s` signature. Rejects any other length (DER included)
    /// and r or s outside [1, n−1] before OpenSSL sees them (CVE-2022-21449 "psychic signatures").
    public func verify(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        guard signature.count == 2 * Self.coordinateSize else { return false }
        let r = Array(signature[..<Self.coordinateSize])
        let s = Array(signature[Self.coordinateSize...])
        for scalar in [r, s] {
            if scalar.allSatisfy({ $0 == 0 }) { return false }
            if !scalar.lexicographicallyPrecedes(Self.order) { return false }
        }
        guard let der = try? ECDSASignature.derFromRaw(signature) else { return false }
        return OpenSSL.verifyDigest(pkey, md: EVP_sha256(), signature: der, data: data)
    }
}
