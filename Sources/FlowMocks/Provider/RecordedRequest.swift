import Foundation

/// One request the backend (or anyone) made to the mock provider, as the checker asserts on it.
/// Secrets are elided: `client_secret`, codes and tokens keep only a prefix.
public struct RecordedRequest: Sendable, Hashable, Codable {
    public enum Endpoint: String, Sendable, Hashable, Codable {
        case jwks
        case token
        case revoke
        case authorize
        case openIDConfiguration = "openid-configuration"
        case userinfo
        /// The attacker JWKS a `jku` header points at (S8): fetching it is a defect.
        case attackerJWKS = "attacker-jwks"
        /// The attacker key an `x5u` header points at (S8): fetching it is a defect.
        case attackerX5U = "attacker-x5u"
        case unknown
    }

    /// 1-based order of arrival.
    public var sequence: Int
    public var time: Date
    public var method: String
    public var path: String
    public var endpoint: Endpoint
    /// Form and query fields, secrets elided.
    public var fields: [String: String]
    /// `grant_type` of a token request.
    public var grantType: String?
    public var clientID: String?
    /// The `client_secret` as verified, with named violations.
    public var clientSecret: ClientSecretReport?
    /// Status the provider answered.
    public var status: Int
    /// Apple error code answered (`invalid_grant`…), if any.
    public var error: String?
    /// The `error_description` answered with it (`The redirect_uri does not match.`), if any.
    public var errorDescription: String?
    /// For JWKS fetches: the key ids served, in order.
    public var servedKeyIDs: [String]?

    /// Fields whose values are secrets.
    static let secretFields: Set<String> = ["client_secret", "code", "refresh_token", "token", "id_token", "access_token", "client_assertion"]

    static func elidedFields(_ fields: [(String, String)]) -> [String: String] {
        var out: [String: String] = [:]
        for (name, value) in fields where out[name] == nil {
            out[name] = secretFields.contains(name) ? Secret.elide(value) : value
        }
        return out
    }
}
