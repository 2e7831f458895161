import COpenSSL

/// One-shot hashes and HMACs on OpenSSL. For JOSE signing inputs, thumbprints,
/// `c_hash`/`at_hash` and nonce hashing; not a streaming API.
public enum Digest {
    public static func sha256(_ data: some Sequence<UInt8>) -> [UInt8] {
        let bytes = Array(data)
        return bytes.withUnsafeBytes { sha256(parts: $0) }
    }
    public static func sha384(_ data: some Sequence<UInt8>) -> [UInt8] { digest(Fetched.sha384, Array(data)) }
    public static func sha512(_ data: some Sequence<UInt8>) -> [UInt8] { digest(Fetched.sha512, Array(data)) }

    /// SHA-256 of the parts one after the other, without joining them first (the site build's
    /// content hashes chain a digest, a length and a text on every call).
    ///
    /// SHA-256 goes through OpenSSL's low-level functions, not EVP: the same assembly, but no
    /// provider to fetch. The first EVP fetch in a process reads OpenSSL's configuration and
    /// loads the default provider, 4.6 M instructions (callgrind), which a `flowspec build`
    /// otherwise paid for its content hashes alone (one changed flow of 2 000 rebuilt: 2.4 % of
    /// its instructions).
    public static func sha256(parts: UnsafeRawBufferPointer...) -> [UInt8] {
        var context = SHA256_CTX()
        var ok = flowspec_sha256_init(&context) == 1
        for part in parts where ok && part.count > 0 { ok = flowspec_sha256_update(&context, part.baseAddress, part.count) == 1 }
        var out = [UInt8](repeating: 0, count: 32)
        ok = ok && out.withUnsafeMutableBufferPointer { flowspec_sha256_final($0.baseAddress, &context) } == 1
        // The low-level functions cannot fail on valid arguments.
        precondition(ok, "SHA-256 failed")
        return out
    }

    /// The digests, fetched once per process. `EVP_sha384()` and its kind make OpenSSL 3 fetch
    /// the implementation again on every use: a lock and a lookup that cost more than hashing a
    /// short input (callgrind: 80 % of the instructions of a SHA-256 of a file path).
    private enum Fetched {
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
