import FlowModel
import Foundation

/// An HTTP request as the mocks see it: transport-neutral, so the same handler serves real
/// sockets (Hummingbird), the in-process transport and unit tests.
public struct MockHTTPRequest: Sendable, Hashable {
    /// Upper-case method (`POST`).
    public var method: String
    /// Path and query as sent (`/auth/token?x=1`).
    public var target: String
    public var headers: [HeaderField]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [HeaderField] = [], body: [UInt8] = []) {
        self.method = method.uppercased()
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// A form-encoded POST (`application/x-www-form-urlencoded`).
    public static func form(_ target: String, _ fields: [(String, String)], headers: [HeaderField] = []) -> MockHTTPRequest {
        MockHTTPRequest(
            method: "POST", target: target,
            headers: [HeaderField(name: "Content-Type", value: "application/x-www-form-urlencoded")] + headers,
            body: Array(FormEncoding.encode(fields).utf8))
    }

    /// Percent-decoded path without the query.
    public var path: String {
        let raw = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        return raw.removingPercentEncoding ?? raw
    }

    /// Raw query string (after `?`), nil without one.
    public var query: String? {
        guard let index = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: index)...])
    }

    /// Query parameters in order (form decoding rules).
    public var queryItems: [(String, String)] { query.map(FormEncoding.decode) ?? [] }

    public func queryValue(_ name: String) -> String? { queryItems.first { $0.0 == name }?.1 }

    /// First header with this name (case-insensitive).
    public func header(_ name: String) -> String? { headers.value(of: name) }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Body fields of a form-encoded request (any content type: Apple does not check it).
    public var formFields: [(String, String)] { FormEncoding.decode(bodyText) }

    public func formValue(_ name: String) -> String? { formFields.first { $0.0 == name }?.1 }

    /// The bearer token of an `Authorization: Bearer …` header.
    public var bearerToken: String? {
        guard let value = header("Authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }
}

/// An HTTP response produced by a mock.
public struct MockHTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [HeaderField]
    public var body: [UInt8]

    public init(status: Int, headers: [HeaderField] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ status: Int, _ value: JSONNode, headers: [HeaderField] = []) -> MockHTTPResponse {
        json(status, bytes: Array(value.description.utf8), headers: headers)
    }

    public static func json(_ status: Int, bytes: [UInt8], headers: [HeaderField] = []) -> MockHTTPResponse {
        MockHTTPResponse(status: status, headers: [HeaderField(name: "Content-Type", value: "application/json")] + headers, body: bytes)
    }

    /// Apple's and our error shape: `{"error":"invalid_client"}` (+ `error_description`).
    public static func error(_ status: Int, _ code: String, description: String? = nil) -> MockHTTPResponse {
        var members: [String: JSONNode] = ["error": .string(code)]
        if let description { members["error_description"] = .string(description) }
        return json(status, .object(members))
    }

    /// The answer to a body larger than `limit` bytes; the connection closes after it.
    static func tooLarge(limit: Int) -> MockHTTPResponse {
        var response = error(413, "request_too_large", description: "the request body is larger than \(limit) bytes")
        response.headers.append(HeaderField(name: "Connection", value: "close"))
        return response
    }

    public static func empty(_ status: Int) -> MockHTTPResponse { MockHTTPResponse(status: status) }

    public func header(_ name: String) -> String? { headers.value(of: name) }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON, nil when it is not JSON.
    public var jsonBody: JSONNode? { JSONNode.parse(body) }
}

/// `application/x-www-form-urlencoded`, as browsers and Apple's token endpoint use it.
public enum FormEncoding {
    private static let unreserved: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        set.insert(charactersIn: "-._*")
        return set
    }()

    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    public static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 128, unreserved.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else if byte == UInt8(ascii: " ") {
                out += "+"
            } else {
                out += "%" + Hex.string(CollectionOfOne(byte), uppercase: true)
            }
        }
        return out
    }

    public static func decode(_ text: String) -> [(String, String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = unescape(String(parts[0]))
            let value = parts.count > 1 ? unescape(String(parts[1])) : ""
            return (name, value)
        }
    }

    public static func unescape(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

