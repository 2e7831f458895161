/// A verdict sentence of the checker as a stable key plus the values quoted from the run, so
/// the site can say it in the page's language (labels `message_<key>` in the theme's
/// labels.yml) while the reports keep the English `message` this renders.
///
/// Placeholders are `{name}`; a `{` not followed by a known argument name and `}` is literal
/// (`{{provider.nonce}}` stays as written). Substitution is one pass: an argument's value is
/// never read for placeholders.
///
/// A quoted value `name` may carry `name.key`: a `MessageKey` (with its own `name.ARG`
/// arguments), or the key of a fixed catalogue text such as a token case's variant
/// (`variant_S3_0`), which the site says by its label `message_<key>` like a sentence.
public struct VerdictMessage: Sendable, Hashable {
    public var key: MessageKey
    public var args: [String: String]

    public init(_ key: MessageKey, _ args: [String: String] = [:]) {
        self.key = key
        self.args = args
    }

    /// A sentence quoting another (`step 6: <what step 6 said>`): `name` holds the quoted text,
    /// and when it is itself a keyed sentence, `name.key` its key and `name.ARG` its arguments, so
    /// the site can say both in the page's language.
    public init(_ key: MessageKey, _ args: [String: String] = [:], quoting inner: VerdictMessage?, text: String, as name: String = "detail") {
        self.init(key, args)
        if let inner, inner.english == text {
            quote(inner, as: name)
        } else {
            self.args[name] = text
        }
    }

    /// Quotes `inner` as the argument `name`: its English text, and its key and arguments
    /// (`name.key`, `name.ARG`) so the site says it in the page's language too.
    public mutating func quote(_ inner: VerdictMessage, as name: String) {
        args[name] = inner.english
        args[name + ".key"] = inner.key.rawValue
        for (arg, value) in inner.args { args[name + "." + arg] = value }
    }

    /// The English sentence: the `message` of the JSON, JUnit and console reports.
    public var english: String { Self.fill(key.english, args) }

    /// Several problems as one message, `; ` between them (one problem is itself). Each keeps
    /// its key and arguments (`itemN.key`, `itemN.ARG`), so the site says each in the page's
    /// language; `items` holds the English list.
    public static func list(_ items: [VerdictMessage]) -> VerdictMessage {
        if items.count == 1 { return items[0] }
        var args = ["count": String(items.count), "items": items.map(\.english).joined(separator: "; ")]
        for (index, item) in items.enumerated() {
            args["item\(index)"] = item.english
            args["item\(index).key"] = item.key.rawValue
            for (name, value) in item.args { args["item\(index).\(name)"] = value }
        }
        return VerdictMessage(.problemList, args)
    }

    /// The sentence of `key` in another language: `template` gives a key's text (nil when it has
    /// none), quoted sentences are said the same way. Nil when the outer key has no text.
    public static func render(key: String, args: [String: String], template: (String) -> String?) -> String? {
        if key == MessageKey.problemList.rawValue, let count = args["count"].flatMap(Int.init), count <= 1_000 {
            return (0..<count).map { index in
                let prefix = "item\(index)."
                var inner: [String: String] = [:]
                for (arg, value) in args where arg.hasPrefix(prefix) { inner[String(arg.dropFirst(prefix.count))] = value }
                return inner["key"].flatMap { render(key: $0, args: inner, template: template) } ?? args["item\(index)"] ?? ""
            }.joined(separator: "; ")
        }
        guard let text = template(key) else { return nil }
        var filled = args
        for name in placeholders(text) {
            guard let innerKey = args[name + ".key"] else { continue }
            let prefix = name + "."
            var inner: [String: String] = [:]
            for (arg, value) in args where arg.hasPrefix(prefix) { inner[String(arg.dropFirst(prefix.count))] = value }
            if let said = render(key: innerKey, args: inner, template: template) { filled[name] = said }
        }
        return fill(text, filled)
    }

    /// `template` with each `{name}` whose name is in `args` replaced by its value.
    public static func fill(_ template: String, _ args: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"), let value = args[String(rest[afterOpen..<close])] {
                out += value
                rest = rest[rest.index(after: close)...]
            } else {
                out += "{"
                rest = rest[afterOpen...]
            }
        }
        return out + rest
    }

    /// The placeholder names of a template (`{name}` with a name of letters and `_`), sorted.
    public static func placeholders(_ template: String) -> [String] {
        var names: Set<String> = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: "}") else { break }
            let name = rest[..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }) { names.insert(String(name)) }
        }
        return names.sorted()
    }
}

/// Every sentence the checker can write as a verdict message, with its English text. The keys
/// are part of the JSON report (`messageKey`): renaming one makes old reports fall back to
/// their English `message` on the site.
public enum MessageKey: String, Sendable, CaseIterable, Codable {
    case cannotBuildRequest = "cannot_build_request"
    case requestAnswered = "request_answered"
    case providerApproved = "provider_approved"
    case providerIssuedNothing = "provider_issued_nothing"
    case providerRefused = "provider_refused"
    case providerIssuedCode = "provider_issued_code"
    case providerError = "provider_error"
    case nothingToObserve = "nothing_to_observe"
    case providerCallObserved = "provider_call_observed"
    case passiveUI = "passive_ui"
    case passiveResponse = "passive_response"
    case passiveInternal = "passive_internal"
    case passiveNoHTTP = "passive_no_http"
    case passiveProviderMessage = "passive_provider_message"
    case passiveOther = "passive_other"
    case noSuchStep = "no_such_step"
    case branchWithoutRequest = "branch_without_request"
    case branchNotDrivable = "branch_not_drivable"
    case notRun = "not_run"
    case afterFailure = "after_failure"
    case stepFailed = "step_failed"
    case nothingOfTheBackend = "nothing_of_the_backend"
    case ruleNamesNoStep = "rule_names_no_step"
    case noStepSubmits = "no_step_submits"
    case noDrivablePath = "no_drivable_path"
    case noSendableRequest = "no_sendable_request"
    case baselineSignInFailed = "baseline_sign_in_failed"
    case forgeryNotForNotification = "forgery_not_for_notification"
    case couldNotReachStep = "could_not_reach_step"
    case inconclusiveProviderRefused = "inconclusive_provider_refused"
    case inconclusiveBaselineRefused = "inconclusive_baseline_refused"
    case informationalAccepted = "informational_accepted"
    case informationalRejected = "informational_rejected"
    case rejectedButKeyFetched = "rejected_but_key_fetched"
    case rejectedButStateChanged = "rejected_but_state_changed"
    case validTokenNotAccepted = "valid_token_not_accepted"
    case accepted = "accepted"
    case acceptedThenFailed = "accepted_then_failed"
    case acceptedAndPathWorks = "accepted_and_path_works"
    case noClearRejection = "no_clear_rejection"
    case rejected = "rejected"
    case serverErrorNotRejection = "server_error_not_rejection"
    case acceptedRuleNotEnforced = "accepted_rule_not_enforced"
    case statusNotRejection = "status_not_rejection"
    case redirectNotRejection = "redirect_not_rejection"
    case returnedWorks = "returned_works"
    case returnedRefused = "returned_refused"
    case rejectedNothingUsable = "rejected_nothing_usable"
    case rejectedReturnedRefused = "rejected_returned_refused"
    case firstSubmissionNotAccepted = "first_submission_not_accepted"
    case stepPostsNoCode = "step_posts_no_code"
    case replay = "replay"
    case stepPostsNoNonce = "step_posts_no_nonce"
    case noTokenEndpointBehaviour = "no_token_endpoint_behaviour"
    case notificationProblems = "notification_problems"
    case notificationResentProblems = "notification_resent_problems"
    case notificationAcceptedTwice = "notification_accepted_twice"
    case notificationStateNotVerified = "notification_state_not_verified"
    case notificationSessionStillWorks = "notification_session_still_works"
    case notificationSessionEnded = "notification_session_ended"
    case notificationSessionKept = "notification_session_kept"
    case notificationSessionEndedAsItShould = "notification_session_ended_as_it_should"
    case noRevokeStep = "no_revoke_step"
    case revokeOnDeletion = "revoke_on_deletion"
    case noResponse = "no_response"
    case statusUnexpected = "status_unexpected"
    case statusUnexpectedRedirect = "status_unexpected_redirect"
    case statusNot2xx = "status_not_2xx"
    case bodyTruncated = "body_truncated"
    case bodyNotJSON = "body_not_json"
    case captureNoHeader = "capture_no_header"
    case captureAbsent = "capture_absent"
    case valueAbsentExpectedPresent = "value_absent_expected_present"
    case valuePresentExpectedAbsent = "value_present_expected_absent"
    case valueAbsentExpectedType = "value_absent_expected_type"
    case valueWrongType = "value_wrong_type"
    case valueAbsentExpectedValue = "value_absent_expected_value"
    case valueNotExpected = "value_not_expected"
    case valueAbsentExpectedMatch = "value_absent_expected_match"
    case patternInvalid = "pattern_invalid"
    case valueNoMatch = "value_no_match"
    case problemList = "problem_list"
    case httpStatus = "http_status"
    case stepCall = "step_call"
    case noAnswer = "no_answer"
    case transportTimeout = "transport_timeout"
    case transportRefused = "transport_refused"
    case transportReset = "transport_reset"
    case transportInvalidURL = "transport_invalid_url"
    case transportOther = "transport_other"
    case grantTypeUnexpected = "grant_type_unexpected"
    case clientSecretViolations = "client_secret_violations"
    case noClientSecret = "no_client_secret"
    case clientIDUnexpected = "client_id_unexpected"
    case providerAnswered = "provider_answered"
    case callNeverMade = "call_never_made"

    /// The English sentence, with `{name}` placeholders.
    public var english: String {
        switch self {
        case .cannotBuildRequest: "cannot build the request: {error}"
        case .requestAnswered: "{method} {path} → {status}"
        case .providerApproved: "simulated at the mock provider: approved"
        case .providerIssuedNothing: "the mock provider issued nothing on approval"
        case .providerRefused: "simulated at the mock provider: {outcome} ({error})"
        case .providerIssuedCode: "the mock provider issued a code on {outcome}"
        case .providerError: "mock provider: {error}"
        case .nothingToObserve: "no sign-in on this path: nothing to observe for the {call}"
        case .providerCallObserved: "observed at the mock provider: {call}, client_secret valid"
        case .passiveUI: "UI only: nothing reaches the backend"
        case .passiveResponse: "the backend's answer, judged at the request it answers"
        case .passiveInternal: "internal to the backend: verified only through its effects"
        case .passiveNoHTTP: "no http block: nothing to send"
        case .passiveProviderMessage: "the provider's answer to the backend's call (observed at the call)"
        case .passiveOther: "not executable"
        case .noSuchStep: "step {step} does not exist"
        case .branchWithoutRequest: "branch \"{branch}\" of step {step} has no request of its own; the step's request drives \"{default}\""
        case .branchNotDrivable:
            "branch \"{branch}\" of step {step} depends on what the backend decides internally; the checker cannot force it (the token suite covers rejections)"
        case .notRun: "not run: {reason}"
        case .afterFailure: "after the failure at step {step}"
        case .stepFailed: "step {step}: {detail}"
        case .nothingOfTheBackend: "nothing the backend does is on this path (UI, provider simulation only)"
        case .ruleNamesNoStep: "the rule names no step that submits the token (`@ N`)"
        case .noStepSubmits: "no step of the flow submits the token this variant forges: {variant} cannot be delivered"
        case .noDrivablePath: "no path through step {step} can be driven"
        case .noSendableRequest: "step {step} has no request the checker can send"
        case .baselineSignInFailed: "the baseline sign-in before the key rotation failed: {detail}"
        case .forgeryNotForNotification: "{forgery} is about the ID token's nonce or replay; a notification carries neither"
        case .couldNotReachStep: "could not reach step {step}: {detail}"
        case .inconclusiveProviderRefused: "inconclusive: {detail}, but the provider had refused the backend's own call: {refusal}"
        case .inconclusiveBaselineRefused:
            "inconclusive: {detail}, but the honest token was refused too ({baseline}: {cause}), so the rejection proves nothing about {rule}"
        case .informationalAccepted: "informational: the backend accepted it ({status})"
        case .informationalRejected: "informational: the backend rejected it ({status})"
        case .rejectedButKeyFetched:
            "rejected, but the backend fetched the key URL named in the token header ({count} request(s) to the checker's attacker URL)"
        case .rejectedButStateChanged: "rejected, but the session no longer works afterwards: the forged notification changed state ({probe})"
        case .validTokenNotAccepted: "a valid token was not accepted: {problems}"
        case .accepted: "accepted ({response})"
        case .acceptedThenFailed: "accepted, but step {step} then failed: {detail}"
        case .acceptedAndPathWorks: "accepted ({response}) and the rest of the path works"
        case .noClearRejection: "no clear rejection: {response}"
        case .rejected: "rejected (HTTP {status})"
        case .serverErrorNotRejection: "server error HTTP {status} instead of a 4xx rejection"
        case .acceptedRuleNotEnforced: "accepted (HTTP {status}): the backend does not enforce {rule}"
        case .statusNotRejection: "HTTP {status} instead of a 4xx rejection"
        case .redirectNotRejection: "HTTP {status} instead of a 4xx rejection (redirect, not followed)"
        case .returnedWorks: "{verdict}; what it returned works: {use}"
        case .returnedRefused: "{verdict}; what it returned is refused: {use}"
        case .rejectedNothingUsable: "rejected (HTTP {status}); nothing usable returned"
        case .rejectedReturnedRefused: "rejected (HTTP {status}); what it returned is refused: {use}"
        case .firstSubmissionNotAccepted: "the first, valid submission was not accepted: {problems}"
        case .stepPostsNoCode: "step {step} posts no code: the identical replay is variant 0"
        case .replay: "replay: {detail}"
        case .stepPostsNoNonce: "step {step} posts no JSON member holding {{provider.nonce}} alone: nothing to leave out"
        case .noTokenEndpointBehaviour: "no token endpoint behaviour for {case}[{index}]"
        case .notificationProblems: "{kind} notification: {problems}"
        case .notificationResentProblems: "{kind} notification sent again (same jti): {problems}"
        case .notificationAcceptedTwice: "{kind} accepted twice (same jti)"
        case .notificationStateNotVerified: "{kind} accepted twice (same jti); no later step uses the session, state change not verified"
        case .notificationSessionStillWorks: "{kind} accepted, but the session still works: {probe}"
        case .notificationSessionEnded: "{kind} accepted, but the session was ended: {probe}"
        case .notificationSessionKept: "{kind} accepted twice (same jti); session kept as it should: {probe}"
        case .notificationSessionEndedAsItShould: "{kind} accepted twice (same jti); session ended as it should: {probe}"
        case .noRevokeStep: "no backend → provider revoke step follows step {step}"
        case .revokeOnDeletion: "revoke on account deletion: {detail}"
        case .noResponse: "no response: {failure}"
        case .statusUnexpected: "status {status}, expected {expected}"
        case .statusUnexpectedRedirect: "status {status}, expected {expected} (redirect to {location}, not followed)"
        case .statusNot2xx: "status {status}, expected 2xx (the step has no status expectation)"
        case .bodyTruncated: "body larger than {bytes} bytes: cut, JSON assertions cannot be judged"
        case .bodyNotJSON: "body is not JSON ({type}, {bytes} bytes)"
        case .captureNoHeader: "capture {name}: no header {header}"
        case .captureAbsent: "capture {name}: {path} is absent"
        case .valueAbsentExpectedPresent: "{what} is absent, expected present"
        case .valuePresentExpectedAbsent: "{what} is present, expected absent"
        case .valueAbsentExpectedType: "{what} is absent, expected {type}"
        case .valueWrongType: "{what} is {actual}, expected {type}"
        case .valueAbsentExpectedValue: "{what} is absent, expected {expected}"
        case .valueNotExpected: "{what} is {actual}, expected {expected}"
        case .valueAbsentExpectedMatch: "{what} is absent, expected to match /{pattern}/"
        case .patternInvalid: "pattern /{pattern}/ is not a valid regular expression"
        case .valueNoMatch: "{what} is {actual}, expected to match /{pattern}/"
        case .problemList: "{items}"
        case .httpStatus: "HTTP {status}"
        case .stepCall: "step {step} {method} {path} → {response}"
        case .noAnswer: "no answer"
        case .transportTimeout: "timeout: no complete answer within {seconds} s"
        case .transportRefused: "connection-refused: nothing listens at the backend's address"
        case .transportReset: "connection-reset: the backend closed the connection before a complete answer"
        case .transportInvalidURL: "invalid-url: {url}"
        case .transportOther: "other: {error}"
        case .grantTypeUnexpected: "grant_type is {grant_type}, expected authorization_code"
        case .clientSecretViolations: "client_secret violations: {violations}"
        case .noClientSecret: "no client_secret"
        case .clientIDUnexpected: "client_id is {client_id}, expected {expected}"
        case .providerAnswered: "the provider answered {status}"
        case .callNeverMade: "the backend never made the {call} for this sign-in (waited {seconds} s)"
        }
    }
}
