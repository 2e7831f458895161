import FlowModel
import Yams

/// Reads a provider profile (YAML, the format of docs/providers.md) into a `ProviderProfile`.
/// Built-in profiles are written in the same format (`BuiltinProviders`), so the format is
/// complete by construction. Problems are `FS801` diagnostics at the profile's file:line:col.
public struct ProviderProfileParser: Sendable {
    /// Profiles a project file may `extends:`, by id.
    public var bases: [String: ProviderProfile]

    public init(bases: [String: ProviderProfile] = [:]) {
        self.bases = bases
    }

    public static let keys: [String] = [
        "id", "name", "extends", "issuers", "endpoints", "signing-algorithms", "client-authentication", "claims", "nonce",
        "subject", "email-domain", "code", "id-token-lifetime", "notifications", "defaults",
    ]
    static let endpointKeys = ["discovery", "authorization", "token", "jwks", "revocation", "userinfo"]
    static let required = ["issuers", "endpoints", "client-authentication"]
    /// Values a claim can take from the signed-in user and the exchange.
    public static let claimSources: [String] = [
        "user.sub", "user.email", "user.email_verified", "user.is_private_email", "user.real_user_status", "user.name",
        "user.given_name", "user.family_name", "user.oid", "client_id", "now", "c_hash", "at_hash",
    ]

    public struct Result: Sendable {
        public var profile: ProviderProfile?
        public var diagnostics: [Diagnostic]
    }

    /// Parses `text` read from `file`; `defaultID` is used when the file has no `id`.
    public func parse(_ text: String, file: String, defaultID: String) -> Result {
        var reader = Reader(file: file, text: text)
        let profile = reader.read(defaultID: defaultID, bases: bases)
        return Result(profile: profile, diagnostics: reader.diagnostics)
    }

    private struct Reader {
        let file: String
        let text: String
        var diagnostics: [Diagnostic] = []

        init(file: String, text: String) {
            self.file = file
            self.text = text
        }

        func location(_ mark: Mark?) -> SourceLocation {
            guard let mark else { return .start(of: file) }
            return SourceLocation(file: file, line: mark.line, column: mark.column)
        }

        mutating func problem(_ mark: Mark?, _ message: String, hint: String? = nil) {
            diagnostics.append(Diagnostic(.invalidProviderProfile, severity: .error, location: location(mark), message: message, hint: hint))
        }

        mutating func read(defaultID: String, bases: [String: ProviderProfile]) -> ProviderProfile? {
            guard let root = compose(), let fields = knownFields(of: root) else { return nil }
            let id = fields["id"].flatMap { scalar($0, "id") } ?? defaultID
            var base: ProviderProfile?
            if let node = fields["extends"], let name = scalar(node, "extends") {
                base = bases[name]
                if base == nil {
                    problem(node.mark, "'extends: \(name)' names no built-in profile", hint: "built-in profiles: \(bases.keys.sorted().joined(separator: ", "))")
                    return nil
                }
            } else {
                for key in ProviderProfileParser.required where fields[key] == nil {
                    problem(root.mark, "provider profile has no '\(key)'", hint: "add it, or start with `extends: oidc` to inherit every key you do not give")
                }
                if ProviderProfileParser.required.contains(where: { fields[$0] == nil }) { return nil }
            }
            var profile = base ?? ProviderProfile(
                id: id, name: id, issuers: [],
                endpoints: .init(discovery: "/.well-known/openid-configuration", authorization: "/authorize", token: "/token", jwks: "/jwks"),
                clientAuthentication: [])
            profile.id = id
            profile.name = fields["name"].flatMap { scalar($0, "name") } ?? (base == nil ? id : profile.name)
            profile.location = SourceLocation(file: file, line: 1, column: 1)
            readProtocol(fields, into: &profile)
            readTokens(fields, base: base, into: &profile)
            if let node = fields["notifications"], let value = boolean(node, "notifications") { profile.notifications = value }
            if let node = fields["defaults"] { readDefaults(node, into: &profile) }
            return diagnostics.isEmpty ? profile : nil
        }

        /// The document's YAML tree, when it is a mapping of a sane size.
        private mutating func compose() -> Node? {
            if text.utf8.count > 256 * 1024 {
                problem(nil, "provider profile is larger than 256 KB")
                return nil
            }
            let root: Node?
            do {
                root = try Yams.compose(yaml: text, .basic, .default, .utf8)
            } catch let error as YamlError {
                let (mark, message) = FrontMatterParser.describe(error)
                problem(mark, "YAML error in provider profile: \(message)")
                return nil
            } catch {
                problem(nil, "YAML error in provider profile: \(error)")
                return nil
            }
            guard let root, root.mapping != nil else {
                problem(root?.mark, "a provider profile is a mapping of keys to values", hint: "start from the example in docs/providers.md")
                return nil
            }
            return root
        }

        /// Key → value for the keys a profile may have; each unknown key is a diagnostic.
        private mutating func knownFields(of root: Node) -> [String: Node]? {
            guard let mapping = root.mapping else { return nil }
            var fields: [String: Node] = [:]
            for (keyNode, value) in mapping {
                guard let key = keyNode.scalar?.string else {
                    problem(keyNode.mark, "profile keys must be plain words")
                    continue
                }
                guard ProviderProfileParser.keys.contains(key) else {
                    let hint = FrontMatterParser.closest(to: key, in: ProviderProfileParser.keys).map { "did you mean '\($0)'?" }
                        ?? "known keys: \(ProviderProfileParser.keys.joined(separator: ", "))"
                    problem(keyNode.mark, "unknown provider profile key '\(key)'", hint: hint)
                    continue
                }
                fields[key] = value
            }
            return fields
        }

        /// Where the provider is and how clients talk to it: issuers, endpoints, algorithms,
        /// client authentication.
        private mutating func readProtocol(_ fields: [String: Node], into profile: inout ProviderProfile) {
            if let node = fields["issuers"] {
                profile.issuers = list(node, "issuers")
                if profile.issuers.isEmpty { problem(node.mark, "'issuers' must list at least one issuer") }
            }
            if let node = fields["endpoints"] { readEndpoints(node, into: &profile) }
            if let node = fields["signing-algorithms"] {
                let algorithms = list(node, "signing-algorithms")
                if algorithms.first != "RS256" {
                    problem(node.mark, "the mock provider signs ID tokens with RS256: list `RS256` first", hint: "signing-algorithms: [RS256]")
                }
                profile.signingAlgorithms = algorithms
            }
            if let node = fields["client-authentication"] {
                var methods: [ClientAuthMethod] = []
                for (item, mark) in listWithMarks(node, "client-authentication") {
                    if let method = ClientAuthMethod(rawValue: item) {
                        methods.append(method)
                    } else {
                        problem(mark, "unknown client authentication method '\(item)'",
                                hint: "one of \(ClientAuthMethod.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                }
                if methods.isEmpty { problem(node.mark, "'client-authentication' must list at least one method") }
                profile.clientAuthentication = methods
            }
        }

        /// What it issues: ID token claims, nonce transform, subject format, e-mail domain, the
        /// authorization code, ID token lifetime.
        private mutating func readTokens(_ fields: [String: Node], base: ProviderProfile?, into profile: inout ProviderProfile) {
            if let node = fields["claims"] { profile.claims = claims(node, merging: base?.claims ?? []) }
            if let node = fields["nonce"], let text = scalar(node, "nonce") {
                if let value = NonceTransform(rawValue: text) { profile.nonce = value } else {
                    problem(node.mark, "'nonce' must be one of \(NonceTransform.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
            if let node = fields["subject"], let text = scalar(node, "subject") {
                if let value = SubjectFormat(rawValue: text) { profile.subject = value } else {
                    problem(node.mark, "'subject' must be one of \(SubjectFormat.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
            if let node = fields["email-domain"], let text = scalar(node, "email-domain") { profile.emailDomain = text }
            if let node = fields["code"] { readCode(node, into: &profile) }
            if let node = fields["id-token-lifetime"], let value = integer(node, "id-token-lifetime", range: 10...86_400) {
                profile.idTokenLifetime = value
            }
        }

        private mutating func readDefaults(_ node: Node, into profile: inout ProviderProfile) {
            guard let entries = node.mapping else {
                problem(node.mark, "'defaults' maps variable names to single values")
                return
            }
            for (key, value) in entries {
                guard let name = key.scalar?.string, let text = value.scalar?.string else {
                    problem(key.mark, "'defaults' maps variable names to single values")
                    continue
                }
                profile.defaults[name] = text
            }
        }

        mutating func readEndpoints(_ node: Node, into profile: inout ProviderProfile) {
            guard let entries = node.mapping else {
                problem(node.mark, "'endpoints' maps discovery, authorization, token, jwks, revocation, userinfo to paths")
                return
            }
            for (keyNode, value) in entries {
                let key = keyNode.scalar?.string ?? ""
                guard ProviderProfileParser.endpointKeys.contains(key) else {
                    problem(keyNode.mark, "unknown endpoint '\(key)'", hint: "endpoints: \(ProviderProfileParser.endpointKeys.joined(separator: ", "))")
                    continue
                }
                if value.scalar?.string.isEmpty ?? false || value.tag.rawValue == Tag.Name.null.rawValue {
                    if key == "revocation" { profile.endpoints.revocation = nil; continue }
                    if key == "userinfo" { profile.endpoints.userinfo = nil; continue }
                }
                guard let path = scalar(value, "endpoints.\(key)") else { continue }
                guard path.hasPrefix("/") else {
                    problem(value.mark, "endpoint '\(key)' must be a path starting with '/', not '\(path)'",
                            hint: "the mock serves every endpoint on its own host; give the path part of the real URL")
                    continue
                }
                switch key {
                case "discovery": profile.endpoints.discovery = path
                case "authorization": profile.endpoints.authorization = path
                case "token": profile.endpoints.token = path
                case "jwks": profile.endpoints.jwks = path
                case "revocation": profile.endpoints.revocation = path
                default: profile.endpoints.userinfo = path
                }
            }
        }

        mutating func readCode(_ node: Node, into profile: inout ProviderProfile) {
            guard let entries = node.mapping else {
                problem(node.mark, "'code' is `{ lifetime: SECONDS, single-use: true|false }`")
                return
            }
            for (keyNode, value) in entries {
                switch keyNode.scalar?.string {
                case "lifetime": if let seconds = integer(value, "code.lifetime", range: 1...86_400) { profile.codeLifetime = seconds }
                case "single-use": if let flag = boolean(value, "code.single-use") { profile.codeSingleUse = flag }
                default: problem(keyNode.mark, "unknown key in 'code'", hint: "code: { lifetime: 300, single-use: true }")
                }
            }
        }

        mutating func claims(_ node: Node, merging inherited: [ClaimSpec]) -> [ClaimSpec] {
            guard let entries = node.mapping else {
                problem(node.mark, "'claims' maps claim names to `{ type, value, when }`")
                return inherited
            }
            var result = inherited
            for (keyNode, value) in entries {
                guard let name = keyNode.scalar?.string, !name.isEmpty else {
                    problem(keyNode.mark, "claim names must be plain words")
                    continue
                }
                if ["iss", "aud", "exp", "iat", "sub", "nonce"].contains(name) {
                    problem(keyNode.mark, "'\(name)' is written by the mock itself (from the issuers, the client and the sign-in); do not list it")
                    continue
                }
                if value.tag.rawValue == Tag.Name.null.rawValue || value.scalar?.string == "~" {
                    result.removeAll { $0.name == name }
                    continue
                }
                guard let fields = value.mapping else {
                    problem(value.mark, "claim '\(name)' must be `{ type: …, value: … }`")
                    continue
                }
                var type: ClaimType?
                var text: String?
                var when = ClaimPresence.always
                for (fieldKey, fieldValue) in fields {
                    switch fieldKey.scalar?.string {
                    case "type":
                        let spelled = fieldValue.scalar?.string ?? ""
                        type = ClaimType(rawValue: spelled)
                        if type == nil {
                            problem(fieldValue.mark, "claim '\(name)': unknown type '\(spelled)'", hint: "types: \(ClaimType.allCases.map(\.rawValue).joined(separator: ", "))")
                        }
                    case "value":
                        text = fieldValue.scalar?.string
                        if text == nil { problem(fieldValue.mark, "claim '\(name)': value must be a single value") }
                    case "when":
                        let spelled = fieldValue.scalar?.string ?? ""
                        if let presence = ClaimPresence(rawValue: spelled) { when = presence } else {
                            problem(fieldValue.mark, "claim '\(name)': unknown 'when' '\(spelled)'", hint: "when: \(ClaimPresence.allCases.map(\.rawValue).joined(separator: ", "))")
                        }
                    default:
                        problem(fieldKey.mark, "claim '\(name)': unknown key", hint: "claims take type, value and when")
                    }
                }
                guard let type, let text else {
                    if type != nil || text != nil || diagnostics.isEmpty {
                        problem(value.mark, "claim '\(name)' needs both `type` and `value`")
                    }
                    continue
                }
                for source in Placeholders.names(in: text) where source.hasPrefix("user.") && !ProviderProfileParser.claimSources.contains(source) {
                    problem(value.mark, "claim '\(name)': unknown value {{\(source)}}",
                            hint: "values: \(ProviderProfileParser.claimSources.map { "{{\($0)}}" }.joined(separator: ", ")), a flow variable, or literal text")
                }
                let spec = ClaimSpec(name: name, type: type, value: text, when: when)
                if let index = result.firstIndex(where: { $0.name == name }) { result[index] = spec } else { result.append(spec) }
            }
            return result
        }

        mutating func scalar(_ node: Node, _ key: String) -> String? {
            if let scalar = node.scalar { return scalar.string }
            problem(node.mark, "'\(key)' must be a single value, not a \(FrontMatterParser.kind(of: node))")
            return nil
        }

        mutating func list(_ node: Node, _ key: String) -> [String] { listWithMarks(node, key).map(\.0) }

        mutating func listWithMarks(_ node: Node, _ key: String) -> [(String, Mark?)] {
            if let scalar = node.scalar { return [(scalar.string, node.mark)] }
            guard let sequence = node.sequence else {
                problem(node.mark, "'\(key)' must be a list")
                return []
            }
            var out: [(String, Mark?)] = []
            for item in sequence {
                if let text = item.scalar?.string { out.append((text, item.mark)) } else { problem(item.mark, "items of '\(key)' must be single values") }
            }
            return out
        }

        mutating func integer(_ node: Node, _ key: String, range: ClosedRange<Int>) -> Int? {
            guard let text = node.scalar?.string, let value = Int(text), range.contains(value) else {
                problem(node.mark, "'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
                return nil
            }
            return value
        }

        mutating func boolean(_ node: Node, _ key: String) -> Bool? {
            switch node.scalar?.string {
            case "true": return true
            case "false": return false
            default:
                problem(node.mark, "'\(key)' must be true or false")
                return nil
            }
        }
    }
}
