import COpenSSL

/// Errors from key handling and signing. Messages never contain key material.
public enum JOSEError: Error, Equatable, CustomStringConvertible {
    /// OpenSSL refused an operation; carries the operation name and OpenSSL's error queue.
    case openssl(operation: String, detail: String)
    /// The key material is malformed or inconsistent (what is wrong, not the values).
    case invalidKey(String)
    /// The key cannot be used with this algorithm.
    case algorithmKeyMismatch(algorithm: JWSAlgorithm, key: String)
    /// Signing needs a private key, this key is public only.
    case missingPrivateKey
    /// Malformed ECDSA signature encoding (DER or raw).
    case invalidSignatureEncoding(String)

    public var description: String {
        switch self {
        case .openssl(let operation, let detail): "OpenSSL \(operation) failed: \(detail)"
        case .invalidKey(let why): "invalid key: \(why)"
        case .algorithmKeyMismatch(let algorithm, let key): "algorithm \(algorithm.rawValue) cannot be used with a \(key) key"
        case .missingPrivateKey: "the key has no private part"
        case .invalidSignatureEncoding(let why): "invalid signature encoding: \(why)"
        }
    }
}

enum OpenSSL {
    /// A C string in static storage, for APIs that keep the pointer (OSSL_PARAM_BLD
    /// names, EVP_PKEY_CTX key types). Swift's String bridging lasts only for the call.
    static func cString(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    static func newContext(keyType: StaticString) throws(JOSEError) -> OpaquePointer {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, cString(keyType), nil) else { throw failure("EVP_PKEY_CTX_new_from_name") }
        return ctx
    }

    /// Drains the thread's OpenSSL error queue into one line.
    static func drainErrors() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no detail" : messages.joined(separator: "; ")
    }

    static func failure(_ operation: String) -> JOSEError {
        .openssl(operation: operation, detail: drainErrors())
    }

    static func check(_ result: Int32, _ operation: String) throws(JOSEError) {
        if result != 1 { throw failure(operation) }
    }

    // Selection bits for EVP_PKEY_fromdata (openssl/core_dispatch.h + evp.h); the
    // composite macros are not imported into Swift.
    static let selectPublicKey: Int32 = 0x86   // EVP_PKEY_PUBLIC_KEY
    static let selectKeyPair: Int32 = 0x87     // EVP_PKEY_KEYPAIR

    static func digest(for algorithm: JWSAlgorithm) -> OpaquePointer? {
        switch algorithm {
        case .RS256, .PS256, .ES256, .HS256: EVP_sha256()
        case .RS384, .PS384: EVP_sha384()
        case .RS512, .PS512: EVP_sha512()
        case .none: nil
        }
    }

    /// Collects OSSL_PARAMs for EVP_PKEY_fromdata. OSSL_PARAM_BLD keeps the *pointers*
    /// to names, strings, octet buffers and BIGNUMs until OSSL_PARAM_BLD_to_param, so
    /// names are static strings and values are owned here until the builder is done.
    final class ParamBuilder {
        let raw: OpaquePointer
        private var bignums: [OpaquePointer] = []
        private var buffers: [UnsafeMutableRawBufferPointer] = []

        init() throws(JOSEError) {
            guard let raw = OSSL_PARAM_BLD_new() else { throw OpenSSL.failure("OSSL_PARAM_BLD_new") }
            self.raw = raw
        }

        deinit {
            OSSL_PARAM_BLD_free(raw)
            bignums.forEach { BN_clear_free($0) }
            for buffer in buffers {
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                buffer.deallocate()
            }
        }


        private func own(_ bytes: [UInt8], terminate: Bool) -> UnsafeMutableRawBufferPointer {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + (terminate ? 1 : 0), alignment: 1)
            buffer.copyBytes(from: bytes + (terminate ? [0] : []))
            buffers.append(buffer)
            return buffer
        }

        /// A copy of `value` (cleared and freed with the builder): a key made here passes its
        /// numbers without writing them out as bytes.
        func bignum(_ name: StaticString, copying value: OpaquePointer) throws(JOSEError) {
            guard let bn = BN_dup(value) else { throw OpenSSL.failure("BN_dup") }
            try push(name, owning: bn)
        }

        /// Big-endian unsigned integer.
        func bignum(_ name: StaticString, _ bytes: [UInt8]) throws(JOSEError) {
            let bn = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
            guard let bn else { throw OpenSSL.failure("BN_bin2bn") }
            try push(name, owning: bn)
        }

        private func push(_ name: StaticString, owning bn: OpaquePointer) throws(JOSEError) {
            bignums.append(bn)
            try OpenSSL.check(OSSL_PARAM_BLD_push_BN(raw, OpenSSL.cString(name), bn), "OSSL_PARAM_BLD_push_BN(\(name))")
        }

        func utf8String(_ name: StaticString, _ value: String) throws(JOSEError) {
            let buffer = own(Array(value.utf8), terminate: true)
            let pointer = buffer.baseAddress!.assumingMemoryBound(to: CChar.self)
            try OpenSSL.check(OSSL_PARAM_BLD_push_utf8_string(raw, OpenSSL.cString(name), pointer, 0), "OSSL_PARAM_BLD_push_utf8_string(\(name))")
        }

        func octetString(_ name: StaticString, _ bytes: [UInt8]) throws(JOSEError) {
            let buffer = own(bytes, terminate: false)
            try OpenSSL.check(OSSL_PARAM_BLD_push_octet_string(raw, OpenSSL.cString(name), buffer.baseAddress, bytes.count), "OSSL_PARAM_BLD_push_octet_string(\(name))")
        }
    }

    /// Builds an EVP_PKEY of `type` ("RSA", "EC") from OSSL_PARAMs.
    static func pkeyFromData(type: StaticString, selection: Int32, build: (ParamBuilder) throws(JOSEError) -> Void) throws(JOSEError) -> OpaquePointer {
        let builder = try ParamBuilder()
        try build(builder)
        guard let params = OSSL_PARAM_BLD_to_param(builder.raw) else { throw failure("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        let ctx = try newContext(keyType: type)
        defer { EVP_PKEY_CTX_free(ctx) }
        try check(EVP_PKEY_fromdata_init(ctx), "EVP_PKEY_fromdata_init")
        var pkey: OpaquePointer?
        try check(EVP_PKEY_fromdata(ctx, &pkey, selection, params), "EVP_PKEY_fromdata")
        guard let pkey else { throw failure("EVP_PKEY_fromdata") }
        return pkey
    }

    /// Reads a BIGNUM parameter as big-endian bytes, left-padded to `length` if given.
    static func bnParam(_ pkey: OpaquePointer, _ name: String, length: Int? = nil) -> [UInt8]? {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else {
            ERR_clear_error()
            return nil
        }
        defer { BN_clear_free(bn) }
        let natural = (Int(BN_num_bits(bn)) + 7) / 8
        let size = max(length ?? natural, natural)
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(bn, $0.baseAddress, Int32(size)) }
        guard written == Int32(size) else { return nil }
        return out
    }

    static func hasParam(_ pkey: OpaquePointer, _ name: String) -> Bool {
        bnParam(pkey, name) != nil
    }

    /// Reads everything written to a memory BIO.
    static func withMemoryBIO(_ body: (OpaquePointer) -> Int32, _ operation: String) throws(JOSEError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new") }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { throw failure(operation) }
        let pending = Int(BIO_ctrl_pending(bio))
        var out = [UInt8](repeating: 0, count: pending)
        let read = out.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        guard read == Int32(pending) else { throw failure("BIO_read") }
        return out
    }

    static func pem(_ pkey: OpaquePointer, privateKey: Bool) throws(JOSEError) -> String {
        let bytes = try withMemoryBIO({ bio in
            privateKey ? PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) : PEM_write_bio_PUBKEY(bio, pkey)
        }, privateKey ? "PEM_write_bio_PrivateKey" : "PEM_write_bio_PUBKEY")
        return String(decoding: bytes, as: UTF8.self)
    }

    static func publicDER(_ pkey: OpaquePointer) throws(JOSEError) -> [UInt8] {
        let length = i2d_PUBKEY(pkey, nil)
        guard length > 0 else { throw failure("i2d_PUBKEY") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pkey, &cursor)
        }
        guard written == length else { throw failure("i2d_PUBKEY") }
        return out
    }

    /// Parses a PEM private key (PKCS#8, PKCS#1, SEC1) or SubjectPublicKeyInfo public key.
    static func parsePEM(_ pem: String) throws(JOSEError) -> OpaquePointer {
        let bytes = Array(pem.utf8)
        func read(_ reader: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
            bytes.withUnsafeBytes { raw in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
                defer { BIO_free(bio) }
                return reader(bio)
            }
        }
        if pem.contains("PRIVATE KEY-----") {
            if let pkey = read({ PEM_read_bio_PrivateKey($0, nil, nil, nil) }) { return pkey }
            throw failure("PEM_read_bio_PrivateKey")
        }
        if let pkey = read({ PEM_read_bio_PUBKEY($0, nil, nil, nil) }) { return pkey }
        throw failure("PEM_read_bio_PUBKEY")
    }

    static func parsePublicDER(_ der: [UInt8]) throws(JOSEError) -> OpaquePointer {
        let pkey = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            let parsed = d2i_PUBKEY(nil, &cursor, buffer.count)
            // Trailing bytes after the SubjectPublicKeyInfo are an error, not ignorable.
            if let parsed, cursor != buffer.baseAddress.map({ $0 + buffer.count }) {
                EVP_PKEY_free(parsed)
                return nil
            }
            return parsed
        }
        guard let pkey else { throw failure("d2i_PUBKEY") }
        return pkey
    }

    static func signDigest(_ pkey: OpaquePointer, md: OpaquePointer?, data: [UInt8], configure: (OpaquePointer) throws(JOSEError) -> Void = { _ throws(JOSEError) in }) throws(JOSEError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer?
        try check(EVP_DigestSignInit(ctx, &pctx, md, nil, pkey), "EVP_DigestSignInit")
        if let pctx { try configure(pctx) }
        var length = 0
        try data.withUnsafeBufferPointer { input throws(JOSEError) in
            try check(EVP_DigestSign(ctx, nil, &length, input.baseAddress, input.count), "EVP_DigestSign(size)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        try data.withUnsafeBufferPointer { input throws(JOSEError) in
            try signature.withUnsafeMutableBufferPointer { output throws(JOSEError) in
                try check(EVP_DigestSign(ctx, output.baseAddress, &length, input.baseAddress, input.count), "EVP_DigestSign")
            }
        }
        return Array(signature.prefix(length))
    }

    static func verifyDigest(_ pkey: OpaquePointer, md: OpaquePointer?, signature: [UInt8], data: [UInt8], configure: (OpaquePointer) -> Bool = { _ in true }) -> Bool {
        defer { ERR_clear_error() }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer?
        guard EVP_DigestVerifyInit(ctx, &pctx, md, nil, pkey) == 1, let pctx, configure(pctx) else { return false }
        let result = data.withUnsafeBufferPointer { input in
            signature.withUnsafeBufferPointer { sig in
                EVP_DigestVerify(ctx, sig.baseAddress, sig.count, input.baseAddress, input.count)
            }
        }
        return result == 1
    }

    static func isA(_ pkey: OpaquePointer, _ name: String) -> Bool {
        EVP_PKEY_is_a(pkey, name) == 1
    }

    static func pairwiseCheck(_ pkey: OpaquePointer) throws(JOSEError) {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { throw failure("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(ctx) }
        if EVP_PKEY_pairwise_check(ctx) != 1 {
            ERR_clear_error()
            throw .invalidKey("the private and public parts do not match")
        }
    }

    /// OpenSSL's whole check of a key pair (`EVP_PKEY_check`): for RSA, every factor prime (64
    /// Miller-Rabin rounds each), n their product, d, the CRT exponents and coefficients. Slow
    /// (tens of milliseconds): for tests of keys made here.
    static func fullCheck(_ pkey: OpaquePointer) -> Bool {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        let valid = EVP_PKEY_check(ctx) == 1
        ERR_clear_error()
        return valid
    }

    static func publicCheck(_ pkey: OpaquePointer) throws(JOSEError) {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { throw failure("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(ctx) }
        if EVP_PKEY_public_check(ctx) != 1 {
            ERR_clear_error()
            throw .invalidKey("public key check failed")
        }
    }
}
