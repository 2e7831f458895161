import FlowModel
import Foundation

/// The provider profiles a run knows: the built-in ones and a project's own
/// `NAME.provider.yml` files found next to its specs. Built-ins are parsed once per process
/// from `BuiltinProviders` (the same format as project files).
public struct ProviderCatalog: Sendable {
    public private(set) var profiles: [String: ProviderProfile]
    /// Problems in project profile files (FS801, FS806).
    public private(set) var diagnostics: [Diagnostic] = []
    /// The project profile files read, in the order read, with their text (what a site's pages
    /// are keyed on: a changed profile changes the token cases a rule lists).
    public private(set) var files: [(path: String, text: String)] = []

    /// Suffix of a project profile file.
    public static let fileSuffix = ".provider.yml"

    public init(profiles: [String: ProviderProfile]) {
        self.profiles = profiles
    }

    /// Only the built-in profiles.
    public static var builtIn: ProviderCatalog { ProviderCatalog(profiles: BuiltinProviders.profiles) }

    public func profile(_ id: String) -> ProviderProfile? { profiles[id] }

    public var ids: [String] { profiles.keys.sorted() }

    /// The profile `flow` names, its `{{variables}}` filled from the flow's (or the profile's
    /// defaults); nil when the flow names none or an unknown one.
    public func resolvedProfile(for flow: Flow) -> ProviderProfile? {
        guard let id = flow.provider, let profile = profiles[id] else { return nil }
        return profile.resolved(variables: Dictionary(flow.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }

    /// How the nonce reaches the claim in `flow`: its `nonce:` key, else its profile's default.
    public func nonceTransform(for flow: Flow) -> NonceTransform {
        flow.nonce ?? flow.provider.flatMap { profiles[$0]?.nonce } ?? .verbatim
    }

    /// The built-ins plus every `*.provider.yml` in the directories of `paths` (a directory
    /// given, or the directory of a file given; not recursive). A project profile may not
    /// reuse a built-in id or another file's id (FS806).
    public static func load(paths: [String]) -> ProviderCatalog {
        var catalog = ProviderCatalog.builtIn
        var directories: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let directory = isDirectory.boolValue ? path : PathText.folder(of: path)
            let normalized = directory.isEmpty ? "." : directory
            if !directories.contains(normalized) { directories.append(normalized) }
        }
        var files: [String] = []
        for directory in directories {
            // (Filtered as listed: a folder of 2 000 specs holds a few profiles at most.
            // FileManager's listing of such a folder was 1.4 M instructions of a rebuild.)
            var names: [String] = []
            DirectoryEntries.forEach(in: directory) { name, _ in
                if name.hasSuffix(fileSuffix) && !name.hasPrefix(".") { names.append(name) }
            }
            for name in names.sorted() {
                files.append(directory == "." ? name : (directory as NSString).appendingPathComponent(name))
            }
        }
        let parser = ProviderProfileParser(bases: BuiltinProviders.profiles)
        var origins: [String: String] = [:]
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                catalog.diagnostics.append(Diagnostic(.invalidProviderProfile, severity: .error, location: .start(of: file), message: "cannot read the provider profile"))
                continue
            }
            guard let text = String(data: data, encoding: .utf8) else {
                catalog.diagnostics.append(Diagnostic(.invalidProviderProfile, severity: .error, location: .start(of: file), message: "the provider profile is not valid UTF-8"))
                continue
            }
            catalog.files.append((file, text))
            let name = (file as NSString).lastPathComponent
            let result = parser.parse(text, file: file, defaultID: String(name.dropLast(fileSuffix.count)))
            catalog.diagnostics += result.diagnostics
            guard let profile = result.profile else { continue }
            if BuiltinProviders.profiles[profile.id] != nil || origins[profile.id] != nil {
                let other = origins[profile.id].map { "\($0)" } ?? "a built-in profile"
                catalog.diagnostics.append(Diagnostic(.duplicateProviderProfile, severity: .error, location: .start(of: file),
                    message: "provider profile id '\(profile.id)' is already taken by \(other)",
                    hint: "give this profile another `id:` (or file name), and `extends: \(profile.id)` to start from it"))
                continue
            }
            origins[profile.id] = file
            catalog.profiles[profile.id] = profile
        }
        return catalog
    }
}

/// The built-in profiles, written in the profile file format (docs/providers.md).
public enum BuiltinProviders {
    public static let profiles: [String: ProviderProfile] = {
        var result: [String: ProviderProfile] = [:]
        for (id, text) in sources {
            let parsed = ProviderProfileParser(bases: result).parse(text, file: "<built-in \(id)>", defaultID: id)
            guard let profile = parsed.profile else {
                preconditionFailure("built-in provider profile \(id) does not parse: \(parsed.diagnostics.map(\.message))")
            }
            result[id] = profile
        }
        return result
    }()

    /// Source of each built-in, in dependency order (none extends another today).
    public static let sources: [(String, String)] = [
        ("apple", apple), ("google", google), ("microsoft", microsoft), ("oidc", oidc),
    ]

    static let apple = """
        name: Sign in with Apple
        issuers: [https://appleid.apple.com]
        endpoints:
          discovery: /.well-known/openid-configuration
          authorization: /auth/authorize
          token: /auth/token
          jwks: /auth/keys
          revocation: /auth/revoke
        signing-algorithms: [RS256]
        client-authentication: [apple_client_secret_jwt]
        nonce: verbatim
        subject: apple
        email-domain: privaterelay.appleid.com
        code: { lifetime: 300, single-use: true }
        id-token-lifetime: 600
        notifications: true
        claims:
          c_hash: { type: string, value: "{{c_hash}}", when: code }
          at_hash: { type: string, value: "{{at_hash}}", when: access-token }
          email: { type: string, value: "{{user.email}}" }
          email_verified: { type: string-boolean, value: "{{user.email_verified}}" }
          is_private_email: { type: string-boolean, value: "{{user.is_private_email}}" }
          auth_time: { type: integer, value: "{{now}}" }
          nonce_supported: { type: boolean, value: "true", when: nonce }
          real_user_status: { type: integer, value: "{{user.real_user_status}}" }
        """

    static let google = """
        name: Google
        issuers: [https://accounts.google.com, accounts.google.com]
        endpoints:
          discovery: /.well-known/openid-configuration
          authorization: /o/oauth2/v2/auth
          token: /token
          jwks: /oauth2/v3/certs
          revocation: /revoke
          userinfo: /v1/userinfo
        signing-algorithms: [RS256]
        client-authentication: [client_secret_post, client_secret_basic]
        nonce: verbatim
        subject: digits
        email-domain: gmail.com
        code: { lifetime: 600, single-use: true }
        id-token-lifetime: 3600
        claims:
          azp: { type: string, value: "{{client_id}}" }
          at_hash: { type: string, value: "{{at_hash}}", when: access-token }
          email: { type: string, value: "{{user.email}}" }
          email_verified: { type: boolean, value: "{{user.email_verified}}" }
          name: { type: string, value: "{{user.name}}" }
          given_name: { type: string, value: "{{user.given_name}}" }
          family_name: { type: string, value: "{{user.family_name}}" }
        """

    static let microsoft = """
        name: Microsoft Entra ID (v2.0)
        issuers: ["https://login.microsoftonline.com/{{tenant_id}}/v2.0"]
        endpoints:
          discovery: /{{tenant_id}}/v2.0/.well-known/openid-configuration
          authorization: /{{tenant_id}}/oauth2/v2.0/authorize
          token: /{{tenant_id}}/oauth2/v2.0/token
          jwks: /{{tenant_id}}/discovery/v2.0/keys
          userinfo: /oidc/userinfo
        signing-algorithms: [RS256]
        client-authentication: [client_secret_post, client_secret_basic, private_key_jwt]
        nonce: verbatim
        subject: opaque
        email-domain: contoso.example
        code: { lifetime: 600, single-use: true }
        id-token-lifetime: 3600
        defaults:
          tenant_id: 9188040d-6c67-4c5b-b112-36a304b66dad
        claims:
          ver: { type: string, value: "2.0" }
          tid: { type: string, value: "{{tenant_id}}" }
          oid: { type: string, value: "{{user.oid}}" }
          nbf: { type: integer, value: "{{now}}" }
          preferred_username: { type: string, value: "{{user.email}}" }
          name: { type: string, value: "{{user.name}}" }
          email: { type: string, value: "{{user.email}}" }
        """

    static let oidc = """
        name: OpenID Connect provider
        issuers: ["{{provider.url}}"]
        endpoints:
          discovery: /.well-known/openid-configuration
          authorization: /authorize
          token: /token
          jwks: /jwks
          revocation: /revoke
          userinfo: /userinfo
        signing-algorithms: [RS256]
        client-authentication: [client_secret_basic, client_secret_post, private_key_jwt]
        nonce: verbatim
        subject: uuid
        email-domain: example.com
        code: { lifetime: 600, single-use: true }
        id-token-lifetime: 3600
        claims:
          at_hash: { type: string, value: "{{at_hash}}", when: access-token }
          email: { type: string, value: "{{user.email}}" }
          email_verified: { type: boolean, value: "{{user.email_verified}}" }
          name: { type: string, value: "{{user.name}}" }
        """
}
