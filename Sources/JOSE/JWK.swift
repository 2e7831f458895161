import FlowModel
import Foundation

/// A JSON Web Key (RFC 7517) as plain base64url strings — the wire form. Turn it
/// into a usable key with `RSAKey(jwk:)` / `ECKey(jwk:)`. Encoding omits nil members.
/// Unknown members (`x5c`, `key_ops`…) are ignored on decode.
public struct JWK: Codable, Hashable, Sendable {
    public var kty: String
    public var kid: String?
    public var use: String?
    public var alg: String?
    public var n: String?
    public var e: String?
    public var crv: String?
    public var x: String?
    public var y: String?
    public var d: String?
    public var p: String?
    public var q: String?
    public var dp: String?
    public var dq: String?
    public var qi: String?
    public var k: String?

    public init(
        kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil,
        n: String? = nil, e: String? = nil, crv: String? = nil, x: String? = nil, y: String? = nil,
        d: String? = nil, p: String? = nil, q: String? = nil, dp: String? = nil, dq: String? = nil,
        qi: String? = nil, k: String? = nil
    ) {
        self.kty = kty; self.kid = kid; self.use = use; self.alg = alg
        self.n = n; self.e = e; self.crv = crv; self.x = x; self.y = y
        self.d = d; self.p = p; self.q = q; self.dp = dp; self.dq = dq; self.qi = qi; self.k = k
    }

    /// Conventional member order (kty, kid, use, alg, then key parameters) as a JSON object;
    /// nil members are left out.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        let fields: [(String, String?)] = [
            ("kty", kty), ("kid", kid), ("use", use), ("alg", alg), ("crv", crv), ("n", n), ("e", e),
            ("x", x), ("y", y), ("d", d), ("p", p), ("q", q), ("dp", dp), ("dq", dq), ("qi", qi), ("k", k),
        ]
        for case (let name, let value?) in fields { object.append(name, .string(value)) }
        return object
    }

    /// Compact deterministic JSON bytes (see `jsonObject` for the order).
    public func jsonBytes() -> [UInt8] { jsonObject.jsonBytes() }

    /// Reads a JWK from a strictly parsed object. Non-string known members are errors.
    public init(object: JSONObject) throws(JWKError) {
        func field(_ name: String) throws(JWKError) -> String? {
            guard let value = object[name] else { return nil }
            guard let string = value.stringValue else { throw .memberNotString(name) }
            return string
        }
        guard let kty = try field("kty") else { throw .missingMember("kty") }
        self.init(
            kty: kty, kid: try field("kid"), use: try field("use"), alg: try field("alg"),
            n: try field("n"), e: try field("e"), crv: try field("crv"), x: try field("x"), y: try field("y"),
            d: try field("d"), p: try field("p"), q: try field("q"), dp: try field("dp"), dq: try field("dq"),
            qi: try field("qi"), k: try field("k"))
    }

    /// Strictly parses JWK JSON (duplicate members rejected).
    public init(json: [UInt8]) throws(JWKError) {
        let node: JSONNode
        do { node = try StrictJSON.parse(json) } catch { throw .json(error) }
        guard let object = node.objectValue else { throw .notAnObject }
        try self.init(object: object)
    }

    /// The same key without private members.
    public var publicOnly: JWK {
        var copy = self
        copy.d = nil; copy.p = nil; copy.q = nil; copy.dp = nil; copy.dq = nil; copy.qi = nil; copy.k = nil
        return copy
    }

    public var isPrivate: Bool { d != nil || k != nil }

    /// RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order,
    /// base64url. Returns "" for a key that lacks a required member or has an unknown `kty`.
    public func thumbprint() -> String {
        let required: [(String, String?)]
        switch kty {
        case "RSA": required = [("e", e), ("kty", kty), ("n", n)]
        case "EC": required = [("crv", crv), ("kty", kty), ("x", x), ("y", y)]
        case "oct": required = [("k", k), ("kty", kty)]
        default: return ""
        }
        var object = JSONObject()
        for (name, value) in required {
            guard let value else { return "" }
            object.append(name, .string(value))
        }
        return Base64URL.encode(Digest.sha256(object.jsonBytes()))
    }
}

extension JWK: CustomStringConvertible, CustomDebugStringConvertible {
    /// The JSON with private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, `k`) redacted, so
    /// keys can be logged and test failures do not print secrets.
    public var description: String {
        var object = jsonObject
        for name in ["d", "p", "q", "dp", "dq", "qi", "k"] where object.contains(name) { object[name] = "<redacted>" }
        return object.jsonString()
    }

    public var debugDescription: String { description }
}

public enum JWKError: Error, Equatable, CustomStringConvertible {
    case json(JSONError)
    case notAnObject
    case missingMember(String)
    case memberNotString(String)
    case keysNotAnArray

    public var description: String {
        switch self {
        case .json(let error): "JWK is not valid JSON: \(error)"
        case .notAnObject: "JWK is not a JSON object"
        case .missingMember(let name): "JWK lacks \"\(name)\""
        case .memberNotString(let name): "JWK member \"\(name)\" is not a string"
        case .keysNotAnArray: "JWKS \"keys\" is missing or not an array"
        }
    }
}

/// A JWK Set (RFC 7517 §5).
public struct JWKS: Codable, Hashable, Sendable {
    public var keys: [JWK]

    public init(keys: [JWK]) { self.keys = keys }

    /// Strict JSON, but tolerant of individual keys: entries that are not readable JWK
    /// objects are skipped, as RFC 7517 §5 asks ("ignore … keys it does not understand");
    /// one odd key must not break the set (token case P6).
    public init(json: [UInt8]) throws(JWKError) {
        self = try Self.decode(json: json).set
    }

    /// Like `init(json:)`, also telling how many entries were skipped.
    public static func decode(json: [UInt8]) throws(JWKError) -> (set: JWKS, skipped: Int) {
        let node: JSONNode
        do { node = try StrictJSON.parse(json) } catch { throw .json(error) }
        guard let object = node.objectValue else { throw .notAnObject }
        guard let entries = object["keys"]?.arrayValue else { throw .keysNotAnArray }
        var keys: [JWK] = []
        for entry in entries {
            if let member = entry.objectValue, let key = try? JWK(object: member) { keys.append(key) }
        }
        return (JWKS(keys: keys), entries.count - keys.count)
    }

    /// `{"keys":[…]}` with each key in `JWK.jsonObject` order.
    public func jsonBytes() -> [UInt8] {
        JSONNode.object(["keys": .array(keys.map { .object($0.jsonObject) })]).jsonBytes()
    }

    /// Keys whose `kid` equals `kid` exactly (byte for byte).
    public func keys(withID kid: String) -> [JWK] {
        keys.filter { $0.kid.map { JSONObject.same($0, kid) } ?? false }
    }
}
