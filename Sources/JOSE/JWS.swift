import FlowModel

/// How to sign a JWS. The algorithm used is the signer's, whatever the header says:
/// `JWS.sign` never reads the header, so callers can mint `alg` mismatches on purpose.
public enum JWSSigner: Sendable {
    /// RS256/384/512 or PS256/384/512.
    case rsa(RSAKey, JWSAlgorithm)
    /// ES256, raw `r ‖ s`.
    case ec(ECKey)
    /// HS256 with these key bytes (any bytes: e.g. an RSA public key's PEM for token case S4).
    case hmac([UInt8])
    /// Empty signature (unsecured JWS, RFC 7515 Appendix A.5).
    case none

    public func sign(_ signingInput: [UInt8]) throws(JOSEError) -> [UInt8] {
        switch self {
        case .rsa(let key, let algorithm): try key.sign(signingInput, algorithm: algorithm)
        case .ec(let key): try key.sign(signingInput)
        case .hmac(let key): Digest.hmacSHA256(key: key, data: signingInput)
        case .none: []
        }
    }
}

/// A key to check a JWS signature with.
public enum JWSVerificationKey: Sendable {
    case rsa(RSAKey)
    case ec(ECKey)
    case hmac([UInt8])
}

/// Why a compact JWS could not be parsed.
public enum JWSError: Error, Equatable, CustomStringConvertible {
    /// Compact JWS has exactly 3 dot-separated segments (a JWE has 5).
    case wrongSegmentCount(Int)
    /// Segment "header", "payload" or "signature" is not strict unpadded base64url.
    case badBase64(segment: String)
    /// The header is not valid JSON (syntax, UTF-8, depth).
    case headerNotJSON
    /// The header is JSON but not an object.
    case headerNotObject
    /// The header repeats a member name (RFC 7515 §5.2: must be rejected).
    case duplicateMember(String)

    public var description: String {
        switch self {
        case .wrongSegmentCount(let count): "compact JWS needs 3 segments, found \(count)"
        case .badBase64(let segment): "the \(segment) is not strict base64url"
        case .headerNotJSON: "the header is not valid JSON"
        case .headerNotObject: "the header is not a JSON object"
        case .duplicateMember(let name): "the header repeats \"\(name)\""
        }
    }
}

/// A structurally valid compact JWS, not yet verified.
public struct ParsedJWS: Sendable, Equatable {
    public var headerBytes: [UInt8]
    public var payloadBytes: [UInt8]
    public var signature: [UInt8]
    /// `BASE64URL(header) '.' BASE64URL(payload)` exactly as received.
    public var signingInput: [UInt8]
    public var header: JSONObject
    /// The payload as a strictly parsed JSON object; nil if it is not one (see `payloadError`).
    public var payload: JSONObject?
    /// Why `payload` is nil: a strict-parse error, or nil with `payload == nil` when it is
    /// valid JSON but not an object.
    public var payloadError: JSONError?

    /// The header's `alg` if it is a string.
    public var algorithm: String? { header.string("alg") }
    /// The header's `kid` if it is a string.
    public var keyID: String? { header.string("kid") }

    /// Checks the signature with `key` under `algorithm`. Never true for `none`, nor
    /// when the key kind does not fit the algorithm. Does not look at the header.
    public func verifySignature(algorithm: JWSAlgorithm, key: JWSVerificationKey) -> Bool {
        switch (algorithm, key) {
        case (.none, _): false
        case (.ES256, .ec(let key)): key.verify(signature, for: signingInput)
        case (.HS256, .hmac(let secret)): Digest.constantTimeEquals(Digest.hmacSHA256(key: secret, data: signingInput), signature)
        case (let alg, .rsa(let key)) where alg.isRSA: key.verify(signature, for: signingInput, algorithm: alg)
        default: false
        }
    }
}

/// Compact JWS (RFC 7515 §7.1) built from and split into exact bytes.
public enum JWS {
    /// `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)` — the bytes are
    /// used as given, so duplicate claims, odd whitespace or non-JSON survive.
    public static func compact(header: [UInt8], payload: [UInt8], signature: [UInt8]) -> String {
        "\(Base64URL.encode(header)).\(Base64URL.encode(payload)).\(Base64URL.encode(signature))"
    }

    public static func signingInput(header: [UInt8], payload: [UInt8]) -> [UInt8] {
        Array("\(Base64URL.encode(header)).\(Base64URL.encode(payload))".utf8)
    }

    public static func sign(header: [UInt8], payload: [UInt8], signer: JWSSigner) throws(JOSEError) -> String {
        let signature = try signer.sign(signingInput(header: header, payload: payload))
        return compact(header: header, payload: payload, signature: signature)
    }

    /// Convenience: serialize header and payload objects in their member order, then sign.
    public static func sign(header: JSONObject, payload: JSONObject, signer: JWSSigner) throws(JOSEError) -> String {
        try sign(header: header.jsonBytes(), payload: payload.jsonBytes(), signer: signer)
    }

    /// Strict parse: 3 segments, strict base64url in each (empty signature allowed),
    /// header a JSON object without duplicate members. The payload may be anything;
    /// it is parsed strictly into `payload` when it is a JSON object.
    public static func parse(_ compact: String) throws(JWSError) -> ParsedJWS {
        try parse(compact, leniency: .none)
    }

    /// What a lenient parser lets through, for the mock backend's defects (the strict parse is
    /// `.none`): canonical `=` padding on a segment (the signing input stays the text as sent,
    /// padding included, as PyJWT does), and duplicate claim names kept first or last.
    public struct Leniency: Sendable {
        public var padding: Bool
        public var duplicateClaims: StrictJSON.DuplicateMembers
        public init(padding: Bool = false, duplicateClaims: StrictJSON.DuplicateMembers = .reject) {
            self.padding = padding
            self.duplicateClaims = duplicateClaims
        }
        public static let none = Leniency()
    }

    public static func parse(_ compact: String, leniency: Leniency) throws(JWSError) -> ParsedJWS {
        // Split on bytes, not Characters: "." followed by a combining mark is one Character.
        let segments = compact.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard segments.count == 3 else { throw .wrongSegmentCount(segments.count) }
        func decode(_ segment: String) -> [UInt8]? {
            guard leniency.padding, segment.hasSuffix("="), segment.utf8.count % 4 == 0 else { return Base64URL.decode(segment) }
            var stripped = segment
            while stripped.hasSuffix("=") { stripped.removeLast() }
            guard segment.utf8.count - stripped.utf8.count <= 2 else { return nil }
            return Base64URL.decode(stripped)
        }
        guard let headerBytes = decode(segments[0]) else { throw .badBase64(segment: "header") }
        guard let payloadBytes = decode(segments[1]) else { throw .badBase64(segment: "payload") }
        guard let signature = decode(segments[2]) else { throw .badBase64(segment: "signature") }

        let headerNode: JSONNode
        do {
            headerNode = try StrictJSON.parse(headerBytes)
        } catch .duplicateMember(let name) {
            throw .duplicateMember(name)
        } catch {
            throw .headerNotJSON
        }
        guard let header = headerNode.objectValue else { throw .headerNotObject }

        var payload: JSONObject?
        var payloadError: JSONError?
        do { payload = try StrictJSON.parse(payloadBytes, duplicates: leniency.duplicateClaims).objectValue } catch { payloadError = error }

        return ParsedJWS(
            headerBytes: headerBytes, payloadBytes: payloadBytes, signature: signature,
            signingInput: Array("\(segments[0]).\(segments[1])".utf8),
            header: header, payload: payload, payloadError: payloadError)
    }
}
