import COpenSSL

/// One-shot hashes and HMACs on OpenSSL. For JOSE signing inputs, thumbprints,
/// `c_hash`/`at_hash` and nonce hashing; not a streaming API.
public enum Digest {
    public static func sha256(_ data: some Sequence<UInt8>) -> [UInt8] { digest(Fetched.sha256, Array(data)) }
    public static func sha384(_ data: some Sequence<UInt8>) -> [UInt8] { digest(Fetched.sha384, Array(data)) }
    public static func sha512(_ data: some Sequence<UInt8>) -> [UInt8] { digest(Fetched.sha512, Array(data)) }

    /// SHA-256 of the parts one after the other, without joining them first (the site build's
    /// content hashes chain a digest, a length and a text on every call).
    public static func sha256(parts: UnsafeRawBufferPointer...) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        var ok = context != nil && EVP_DigestInit_ex(context, Fetched.sha256, nil) == 1
        for part in parts where ok && part.count > 0 { ok = EVP_DigestUpdate(context, part.baseAddress, part.count) == 1 }
        var length: UInt32 = 0
        ok = ok && out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) } == 1
        // These only fail on allocation failure with a built-in digest.
        precondition(ok && length == 32, "SHA-256 failed: \(OpenSSL.drainErrors())")
        return out
    }

    /// The digests, fetched once per process. `EVP_sha256()` and its kind make OpenSSL 3 fetch
    /// the implementation again on every use: a lock and a lookup that cost more than hashing a
    /// short input (callgrind: 80 % of the instructions of a SHA-256 of a file path).
    private enum Fetched {
        nonisolated(unsafe) static let sha256: OpaquePointer? = fetch("SHA256", else: EVP_sha256())
        nonisolated(unsafe) static let sha384: OpaquePointer? = fetch("SHA384", else: EVP_sha384())
        nonisolated(unsafe) static let sha512: OpaquePointer? = fetch("SHA512", else: EVP_sha512())

        private static func fetch(_ name: String, else legacy: OpaquePointer?) -> OpaquePointer? {
            EVP_MD_fetch(nil, name, nil) ?? legacy
        }
    }

    public static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] { hmac(EVP_sha256(), key: key, data: data) }
    public static func hmacSHA384(key: [UInt8], data: [UInt8]) -> [UInt8] { hmac(EVP_sha384(), key: key, data: data) }
    public static func hmacSHA512(key: [UInt8], data: [UInt8]) -> [UInt8] { hmac(EVP_sha512(), key: key, data: data) }

    /// Constant-time comparison (CRYPTO_memcmp); false when lengths differ.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 } }
    }

    private static func digest(_ md: OpaquePointer?, _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, md, nil) }
        }
        // EVP_Digest only fails on allocation failure with a built-in digest.
        precondition(ok == 1, "EVP_Digest failed: \(OpenSSL.drainErrors())")
        return Array(out.prefix(Int(length)))
    }

    private static func hmac(_ md: OpaquePointer?, key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // A zero-length key still needs a non-null pointer.
        let keyBytes = key.isEmpty ? [UInt8(0)] : key
        let result = keyBytes.withUnsafeBytes { k in
            data.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in
                    HMAC(md, k.baseAddress, Int32(key.count), d.baseAddress, d.count, o.baseAddress, &length)
                }
            }
        }
        precondition(result != nil, "HMAC failed: \(OpenSSL.drainErrors())")
        return Array(out.prefix(Int(length)))
    }
}
