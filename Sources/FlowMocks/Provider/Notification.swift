import FlowModel
import JOSE

/// A server-to-server notification Apple sends to the backend's notification endpoint.
public struct NotificationEvent: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case emailDisabled = "email-disabled"
        case emailEnabled = "email-enabled"
        case consentRevoked = "consent-revoked"
        case accountDelete = "account-delete"

        /// Events after which the backend must end the user's sessions.
        public var endsSessions: Bool { self == .consentRevoked || self == .accountDelete }
    }

    public var kind: Kind
    /// The user the event is about.
    public var sub: String
    /// Milliseconds since 1970; nil means "now" at minting.
    public var eventTime: Int64?
    /// Sent with email events.
    public var email: String?
    public var isPrivateEmail: Bool?
    /// The JWT id; set it to post a duplicate. Nil means a fresh one.
    public var jti: String?

    public init(kind: Kind, sub: String, eventTime: Int64? = nil, email: String? = nil, isPrivateEmail: Bool? = nil, jti: String? = nil) {
        self.kind = kind
        self.sub = sub
        self.eventTime = eventTime
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.jti = jti
    }

    /// The `events` claim: a JSON object *serialized as a string*, as Apple sends it.
    func eventsString(now: Int64) -> String {
        var object = JSONObject()
        object.append("type", .string(kind.rawValue))
        object.append("sub", .string(sub))
        if let email { object.append("email", .string(email)) }
        if let isPrivateEmail { object.append("is_private_email", .string(isPrivateEmail ? "true" : "false")) }
        object.append("event_time", .int(eventTime ?? now * 1000))
        return object.jsonString()
    }
}

/// The body Apple posts: `{"payload":"<JWT>"}`.
public enum NotificationBody {
    public static func json(for jwt: String) -> String {
        JSONNode.object(["payload": .string(jwt)]).jsonString()
    }
}
