import FlowModel

/// FS802 `provider:` names no known profile; FS803 the flow uses the identity provider (token
/// rules, `{{provider.…}}` values) but names none; FS804 a token-rule row the provider's profile
/// cannot express (notifications from a provider that sends none, revocation without a
/// revocation endpoint, a claim it never issues); FS805 the profile needs a variable
/// (`{{tenant_id}}`) that the flow does not declare and the profile gives no default for.
struct ProviderRule: FlowRule {
    static let codes: [DiagnosticCode] = [.unknownProvider, .providerNotNamed, .providerCannotExpress, .providerVariableMissing]

    /// OpenID Connect's standard and registered ID-token claims (Core §2, §5.1), so a
    /// requirement naming one the provider never issues is caught.
    static let knownClaims: Set<String> = [
        "name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile", "picture",
        "website", "email", "email_verified", "gender", "birthdate", "zoneinfo", "locale", "phone_number",
        "phone_number_verified", "address", "updated_at", "azp", "at_hash", "c_hash", "auth_time", "acr", "amr", "sid",
    ]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let flow = context.flow
        guard let name = flow.provider else {
            if let rule = flow.tokenRules.first {
                diagnostics.append(.error(.providerNotNamed, flow.tokenRulesLocation ?? rule.location,
                                          "token rules need an identity provider, but the front matter names none",
                                          hint: "add `provider: \(context.providers.ids.joined(separator: "|"))` (or your own NAME.provider.yml)"))
            }
            let references = flow.steps.flatMap { step in
                (step.exchange.map { [$0.request] } ?? []) + step.alternates.compactMap(\.request)
            }.flatMap(\.references)
            if let use = references.first(where: { $0.name.hasPrefix("provider.") }) {
                diagnostics.append(.error(.providerNotNamed, use.location, "{{\(use.name)}} comes from the identity provider, but the front matter names none",
                                          hint: "add `provider: …` to the front matter"))
            }
            return
        }
        let at = flow.keyLocations["provider"] ?? flow.location
        guard let profile = context.providers.profile(name) else {
            let hint = suggestion(for: name, among: context.providers.ids).map { "did you mean '\($0)'?" }
                ?? "known providers: \(context.providers.ids.joined(separator: ", ")); a project adds its own as NAME.provider.yml next to the specs"
            diagnostics.append(.error(.unknownProvider, at, "unknown provider '\(name)'", hint: hint))
            return
        }
        let declared = Set(flow.variables.map(\.name))
        for variable in profile.templateVariables where !declared.contains(variable) && profile.defaults[variable] == nil {
            diagnostics.append(.error(.providerVariableMissing, at, "provider '\(name)' needs the variable '\(variable)' (its issuer or paths use {{\(variable)}})",
                                      hint: "declare it under `variables:`"))
        }
        for rule in flow.tokenRules {
            let aboutNotifications = rule.kind == .notifications || rule.token.lowercased().utf8Contains("notification")
            if aboutNotifications, !profile.notifications {
                diagnostics.append(.error(.providerCannotExpress, rule.location, "\(profile.name) sends no server-to-server notifications: rule '\(rule.id)' cannot be checked",
                                          hint: "remove the row, or use a provider profile with `notifications: true`"))
                continue
            }
            if rule.kind == .revocation, profile.endpoints.revocation == nil {
                diagnostics.append(.error(.providerCannotExpress, rule.location, "\(profile.name) has no revocation endpoint: rule '\(rule.id)' cannot be checked",
                                          hint: "remove the row, or give the profile `endpoints: { revocation: /… }`"))
                continue
            }
            if aboutNotifications { continue }
            for claim in Self.claimNames(in: rule.requirement) where Self.knownClaims.contains(claim) || otherProfilesIssue(claim, context) {
                if !profile.issues(claim: claim) {
                    diagnostics.append(.error(.providerCannotExpress, rule.location, "\(profile.name) never issues the claim '\(claim)' named in rule '\(rule.id)'",
                                              hint: "claims of \(profile.id): \(profile.claims.map(\.name).joined(separator: ", "))"))
                }
            }
        }
    }

    private func otherProfilesIssue(_ claim: String, _ context: RuleContext) -> Bool {
        context.providers.profiles.values.contains { $0.claim(claim) != nil }
    }

    /// Words of a requirement that can only be claim names: snake_case identifiers
    /// (`is_private_email`) and the short registered ones (`azp`, `tid`). Plain words such as
    /// "name" or "email" are prose, not evidence of a claim.
    static func claimNames(in text: String) -> [String] {
        var names: [String] = []
        var text = text
        text.withUTF8 { bytes in
            // Words of `[a-z0-9_]`, on bytes: every other scalar (its bytes are never those) ends one.
            var start = 0
            func flush(_ end: Int) {
                defer { start = end + 1 }
                guard end > start, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[start]) else { return }
                let word = UnsafeBufferPointer(rebasing: bytes[start..<end])
                // Only a word of a short claim's length is compared with them (most words are not).
                guard word.contains(UInt8(ascii: "_"))
                    || (word.count < 64 && (shortClaimLengths >> word.count) & 1 == 1 && shortClaimKeys.contains(key(word)))
                else { return }
                let name = String(decoding: word, as: UTF8.self)
                if !names.contains(name) { names.append(name) }
            }
            for index in 0..<bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): continue
                default: flush(index)
                }
            }
            flush(bytes.count)
        }
        return names
    }

    /// Registered claims short enough to be words of prose otherwise.
    static let shortClaims = ["azp", "tid", "oid", "hd", "acr", "amr", "sid", "ver"]
    /// Their lengths, as bits of a word (a `Set` hashed every word of every requirement).
    static let shortClaimLengths: UInt64 = shortClaims.reduce(0) { $0 | 1 << UInt64($1.utf8.count) }
    /// Their bytes as numbers (`key`): a word is compared in one instruction, not by a walk of
    /// two UTF-8 views (a tenth of a million of those per 200 specs).
    static let shortClaimKeys: [UInt64] = shortClaims.map { claim in Array(claim.utf8).withUnsafeBufferPointer(key) }

    /// Up to 8 bytes of letters as one number, first byte lowest; equal numbers are equal words
    /// (no byte is zero). Only words of a short claim's length (2 or 3) are keyed.
    static func key(_ word: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var key: UInt64 = 0
        for (index, byte) in word.prefix(8).enumerated() { key |= UInt64(byte) << (8 * UInt64(index)) }
        return key
    }
}
