import FlowModel

/// What the provider's records say broke a backend's calls: the root cause a failing or
/// inconclusive item names, read from the requests the backend made for the item's sign-in.
enum ProviderDiagnosis {
    /// A refusal that comes from how the backend is set up, not from the token it was given:
    /// its client authentication (`invalid_client`, with the violations the provider named),
    /// a `client_id` the provider does not know, or a `redirect_uri` that is not the
    /// registered one. Nil when the records show none.
    static func configurationRefusal(_ requests: [ProviderRequestEvidence]) -> String? {
        for request in requests where request.endpoint == "token" || request.endpoint == "revoke" {
            let call = request.endpoint == "revoke" ? "revocation" : request.grantType == "refresh_token" ? "refresh" : "code exchange"
            let clientID = request.fields["client_id"].map { " \($0)" } ?? ""
            // invalid_client without a named violation is the token endpoint told to answer so
            // (X2), not the backend's credentials.
            if request.error == "invalid_client", !request.clientSecretViolations.isEmpty {
                if request.clientSecretViolations.contains("unknown-client") {
                    return "the provider does not know the backend's client_id\(clientID) (invalid_client on its \(call)): the registration is for another client"
                }
                let violations = request.clientSecretViolations.joined(separator: ", ")
                return "the provider refused the backend's client authentication on its \(call) (invalid_client: \(violations)): the backend's credentials are not the registration's"
            }
            let description = request.errorDescription?.lowercased() ?? ""
            if description.contains("redirect_uri") {
                let sent = request.fields["redirect_uri"].map { " \($0)" } ?? ""
                return "the provider refused the backend's \(call): redirect_uri\(sent) is not the registered one (\(request.error ?? "error"): \(request.errorDescription ?? ""))"
            }
        }
        return nil
    }

    /// The root cause of a failure, when the provider's records show one: a configuration
    /// refusal, or — when the step posts an authorization code — no code exchange at all.
    static func cause(_ requests: [ProviderRequestEvidence], expectsExchange: Bool) -> String? {
        if let refusal = configurationRefusal(requests) { return refusal }
        if expectsExchange, !requests.contains(where: { $0.endpoint == "token" }) {
            return "the backend made no call to the provider's token endpoint with this sign-in's code"
        }
        return nil
    }
}

/// A rejection proves a rule only if the backend accepts the honest token at the same step:
/// otherwise every forgery is refused for the reason the honest one was, whatever the backend
/// checks. After a run (and after merging shards), the reject cases of a rule whose baseline
/// (`flow/rule/P1`) failed become inconclusive, naming the baseline's root cause.
public enum BaselineGate {
    /// A failing baseline: what a gated case names as its reason.
    struct Baseline: Sendable, Hashable {
        var id: String
        var message: String?
        var cause: String?

        var causeText: String { cause ?? message ?? "the honest token was not accepted" }
    }

    static func isFailingBaseline(_ header: ResultHeader) -> Bool {
        header.tokenCase?.caseID == "P1" && header.verdict.failsRun
    }

    /// The failing baseline that turns this result inconclusive: a passed reject case whose
    /// rule's `P1` is among `baselines` (by id).
    static func baseline(gating header: ResultHeader, in baselines: [String: Baseline]) -> Baseline? {
        guard header.verdict == .pass, let info = header.tokenCase, info.expectation == CaseExpectation.reject.rawValue else { return nil }
        return baselines[Planner.baselineID(flowID: header.flowID, rule: info.rule)]
    }

    public static func apply(_ results: [ItemResult]) -> [ItemResult] {
        var baselines: [String: Baseline] = [:]
        for result in results where isFailingBaseline(result.header) {
            baselines[result.id] = Baseline(id: result.id, message: result.message, cause: result.cause)
        }
        guard !baselines.isEmpty else { return results }
        return results.map { result in
            guard let baseline = baseline(gating: result.header, in: baselines) else { return result }
            return gate(result, by: baseline, held: result.heldProviderRequests)
        }
    }

    /// `result` made inconclusive by its failing baseline; the provider calls it held become its
    /// evidence.
    static func gate(_ result: ItemResult, by baseline: Baseline, held: [ProviderRequestEvidence]?) -> ItemResult {
        var gated = result
        let cause = baseline.causeText
        gated.verdict = .inconclusive
        gated.keyedMessage = VerdictMessage(.inconclusiveBaselineRefused, ["baseline": baseline.id, "cause": cause, "rule": result.tokenCase?.rule ?? ""], quoting: result.keyedMessage, text: result.message ?? "rejected")
        gated.cause = cause
        var evidence = result.evidence ?? Evidence()
        if evidence.providerRequests.isEmpty, let held {
            evidence.providerRequests = held
            if held.isEmpty { evidence.notes.append("the backend made no call to the provider for this item") }
        }
        evidence.notes.append("baseline \(baseline.id) failed: \(baseline.message ?? "")")
        gated.evidence = evidence
        return gated
    }
}
