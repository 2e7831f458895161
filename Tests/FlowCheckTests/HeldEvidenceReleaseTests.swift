import Testing
@testable import FlowCheck

/// A passed reject case holds its provider calls only while its rule's baseline might still
/// fail: once `P1` of the rule passed (before or after it) they are let go; when `P1` fails
/// they stay for the baseline gate, which makes them the inconclusive case's evidence.
@Suite struct HeldEvidenceReleaseTests {
    static let call = ProviderRequestEvidence(
        method: "POST", path: "/auth/token", endpoint: "token", grantType: "authorization_code", status: 200, error: nil,
        clientSecretViolations: [], fields: ["code": "c0de…"])

    static func item(_ flow: String, _ rule: String, _ caseID: String, _ verdict: Verdict, holding: Bool) -> ItemResult {
        let info = TokenCaseInfo(
            rule: rule, rulePosition: 0, caseID: caseID, variant: nil, variantDescription: nil,
            expectation: caseID == "P1" ? "accept" : "reject", step: 4, conformanceID: nil)
        var result = ItemResult(id: "\(flow)/\(rule)/\(caseID)", flowID: flow, kind: .tokenCase, title: caseID, verdict: verdict, tokenCase: info)
        if holding { result.heldProviderRequests = [call] }
        return result
    }

    @Test func heldCallsGoOnceTheBaselinePassedAndStayWhenItFailed() {
        var collected = HeldEvidenceRelease(capacity: 8)
        collected.append(Self.item("a", "nonce", "C12", .pass, holding: true))      // before its baseline
        collected.append(Self.item("b", "nonce", "C12", .pass, holding: true))      // another flow, baseline fails
        collected.append(Self.item("a", "nonce", "P1", .pass, holding: false))
        collected.append(Self.item("a", "nonce", "C13", .pass, holding: true))      // after its baseline
        collected.append(Self.item("a", "expiry", "C5", .pass, holding: true))      // another rule, no baseline yet
        collected.append(Self.item("b", "nonce", "P1", .fail, holding: false))
        let held = collected.items.map { $0.heldProviderRequests != nil }
        #expect(held == [false, true, false, false, true, false])

        // The gate still has what it needs where the baseline failed.
        let gated = BaselineGate.apply(collected.items)
        let inconclusive = gated.first { $0.id == "b/nonce/C12" }
        #expect(inconclusive?.verdict == .inconclusive)
        #expect(inconclusive?.evidence?.providerRequests == [Self.call])
    }
}
