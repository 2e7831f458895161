import FlowModel
import Foundation
import JOSE
import Testing
@testable import FlowMocks

/// For each defect: the case that exposes it is handled correctly without the defect and
/// mis-handled with it.
struct DefectCase: Sendable, CustomTestStringConvertible {
    enum Driver: Sendable {
        case forgery(String, Int)
        case override(TokenEndpointOverride)
    }

    /// What the defect does to the case.
    enum Effect: Sendable {
        /// A forgery that must be rejected is accepted.
        case acceptsForgery
        /// A token that must be accepted is rejected.
        case rejectsPositive
    }

    var defect: Defect
    var driver: Driver
    var effect: Effect
    var testDescription: String { defect.rawValue }

    static let signInCases: [DefectCase] = [
        DefectCase(defect: .skipSignature, driver: .forgery("S1", 0), effect: .acceptsForgery),
        DefectCase(defect: .trustHeaderAlg, driver: .forgery("S4", 0), effect: .acceptsForgery),
        DefectCase(defect: .algNoneAccepted, driver: .forgery("S3", 0), effect: .acceptsForgery),
        DefectCase(defect: .ignoreHeaderAlg, driver: .forgery("S5", 0), effect: .acceptsForgery),
        DefectCase(defect: .skipAud, driver: .forgery("C2", 0), effect: .acceptsForgery),
        DefectCase(defect: .skipIss, driver: .forgery("C1", 0), effect: .acceptsForgery),
        DefectCase(defect: .skipExp, driver: .forgery("C5", 0), effect: .acceptsForgery),
        DefectCase(defect: .skipIat, driver: .forgery("C9", 0), effect: .acceptsForgery),
        DefectCase(defect: .skipNbf, driver: .forgery("C10", 0), effect: .acceptsForgery),
        DefectCase(defect: .skipNonce, driver: .forgery("C12", 0), effect: .acceptsForgery),
        DefectCase(defect: .nonceUnhashed, driver: .forgery("C14", 0), effect: .acceptsForgery),
        DefectCase(defect: .nonceUnhashed, driver: .forgery("P1", 0), effect: .rejectsPositive),
        DefectCase(defect: .noCodeExchange, driver: .override(.error("invalid_grant")), effect: .acceptsForgery),
        DefectCase(defect: .skipExchangeSubject, driver: .override(.differentSubject), effect: .acceptsForgery),
        DefectCase(defect: .firstKey, driver: .forgery("P4", 0), effect: .rejectsPositive),
        DefectCase(defect: .kidFallback, driver: .forgery("S10", 0), effect: .acceptsForgery),
        DefectCase(defect: .noJWKSRefetch, driver: .forgery("P5", 0), effect: .rejectsPositive),
        DefectCase(defect: .rejectUnusableJWKS, driver: .forgery("P6", 0), effect: .rejectsPositive),
        DefectCase(defect: .acceptCrit, driver: .forgery("S11", 0), effect: .acceptsForgery),
        DefectCase(defect: .trustEmbeddedJWK, driver: .forgery("S7", 0), effect: .acceptsForgery),
        DefectCase(defect: .trustJKU, driver: .forgery("S8", 0), effect: .acceptsForgery),
        DefectCase(defect: .clientSecretDER, driver: .forgery("P1", 0), effect: .rejectsPositive),
        DefectCase(defect: .lenientBase64, driver: .forgery("S13", 0), effect: .acceptsForgery),
        DefectCase(defect: .lenientBase64, driver: .forgery("S13", 1), effect: .acceptsForgery),
        DefectCase(defect: .lenientBase64, driver: .forgery("S13", 2), effect: .acceptsForgery),
        DefectCase(defect: .iatString, driver: .forgery("C20", 0), effect: .acceptsForgery),
        DefectCase(defect: .nbfString, driver: .forgery("C21", 0), effect: .acceptsForgery),
        // First-wins reads the right value when it comes first (even variants), last-wins when
        // it comes last (odd): aud, then exp.
        DefectCase(defect: .duplicateClaimsFirstWins, driver: .forgery("C16", 0), effect: .acceptsForgery),
        DefectCase(defect: .duplicateClaimsFirstWins, driver: .forgery("C16", 2), effect: .acceptsForgery),
        DefectCase(defect: .duplicateClaimsLastWins, driver: .forgery("C16", 1), effect: .acceptsForgery),
        DefectCase(defect: .duplicateClaimsLastWins, driver: .forgery("C16", 3), effect: .acceptsForgery),
    ]

    /// Runs the case's sign-in (after a baseline sign-in that warms the JWKS cache).
    func run(with defects: Set<Defect>) async -> (response: MockHTTPResponse, harness: Harness) {
        let harness = await Harness(defects: defects)
        _ = await harness.webSignIn(user: MockUser.random(using: SeededRandom(seed: 600)))
        await harness.provider.resetRecords()
        let user = MockUser.random(using: SeededRandom(seed: 601))
        switch driver {
        case .forgery(let caseID, let index):
            let forgery: TokenForgery = caseID == "P1" ? .none : .variant(caseID: caseID, index: index)
            return (await harness.webSignIn(forgery, user: user).response, harness)
        case .override(let value):
            await harness.provider.setTokenEndpointOverride(value)
            return (await harness.webSignIn(user: user).response, harness)
        }
    }
}

@Suite struct DefectTests {
    @Test func everyDefectHasATest() {
        let covered = Set(DefectCase.signInCases.map(\.defect)).union([
            .acceptReplay, .serverErrorOnMalformed, .keepSessionAfterRevoke, .skipRevoke, .ignoreNotificationSignature, .nonceOptional,
        ])
        #expect(covered == Set(Defect.allCases))
    }

    @Test(arguments: DefectCase.signInCases)
    func defectIsExposedByItsCase(_ defectCase: DefectCase) async throws {
        let (correct, correctHarness) = await defectCase.run(with: [])
        let (defective, defectiveHarness) = await defectCase.run(with: [defectCase.defect])
        let correctReason = await correctHarness.backend.lastRejectionReason() ?? ""
        let defectiveReason = await defectiveHarness.backend.lastRejectionReason() ?? ""
        switch defectCase.effect {
        case .acceptsForgery:
            #expect((400..<500).contains(correct.status), "correct backend answered \(correct.status)")
            #expect(defective.status == 200, "defective backend: \(defectiveReason)")
            let session = try #require(defectiveHarness.session(of: defective))
            #expect(await defectiveHarness.backend.isSessionAlive(session))
        case .rejectsPositive:
            #expect(correct.status == 200, "correct backend: \(correctReason)")
            #expect((400..<500).contains(defective.status), "defective backend answered \(defective.status)")
        }
        switch defectCase.defect {
        case .trustJKU:
            #expect(await correctHarness.provider.records(at: .attackerJWKS).isEmpty)
            #expect(await defectiveHarness.provider.records(at: .attackerJWKS).count == 1)
        case .noCodeExchange:
            #expect(await correctHarness.provider.records(at: .token).count == 1)
            #expect(await defectiveHarness.provider.records(at: .token).isEmpty)
        case .clientSecretDER:
            #expect(await defectiveHarness.provider.records(at: .token).first?.clientSecret?.violations == [.signatureDER])
        case .noJWKSRefetch:
            #expect(await correctHarness.backend.jwksFetchCount() == 2)
            #expect(await defectiveHarness.backend.jwksFetchCount() == 1)
        default:
            break
        }
    }

    @Test func acceptReplaySignsTheSameTokenInTwice() async throws {
        for defects in [Set<Defect>(), [.acceptReplay]] {
            let harness = await Harness(defects: defects)
            let signIn = await harness.provider.signIn(clientID: Flows.webClientID, rawNonce: "n", user: MockUser.random(), forgery: .variant(caseID: "C15", index: 0))
            let template = Flows.web.steps[1].exchange!.request
            #expect(await harness.send(template, signIn.placeholderValues).status == 200)
            let second = await harness.send(template, signIn.placeholderValues)
            if defects.isEmpty {
                #expect(second.status == 401)
            } else {
                #expect(second.status == 200)
                #expect(harness.session(of: second) != nil)
            }
        }
    }

    /// The web login posted with its nonce member left out, empty or null (C19): only a backend
    /// that checks the nonce "if one was sent" signs it in.
    @Test func nonceOptionalSignsInWithoutTheNonce() async throws {
        let template = Flows.web.steps[1].exchange!.request
        for defects in [Set<Defect>(), [.nonceOptional]] {
            for (index, body) in [#"{"authorization_code": "{{provider.code}}", "id_token": "{{provider.id_token}}"}"#,
                                  #"{"authorization_code": "{{provider.code}}", "id_token": "{{provider.id_token}}", "nonce": ""}"#,
                                  #"{"authorization_code": "{{provider.code}}", "id_token": "{{provider.id_token}}", "nonce": null}"#].enumerated() {
                let harness = await Harness(defects: defects)
                let signIn = await harness.provider.signIn(clientID: Flows.webClientID, rawNonce: "raw-nonce-0123456789", user: MockUser.random())
                var request = template
                request.body = body
                let response = await harness.send(request, signIn.placeholderValues)
                if defects.isEmpty {
                    #expect((400..<500).contains(response.status), "variant \(index): \(response.status)")
                } else {
                    let reason = await harness.backend.lastRejectionReason() ?? ""
                    #expect(response.status == 200, "variant \(index): \(reason)")
                }
            }
        }
    }

    @Test func serverErrorOnMalformed() async throws {
        for defects in [Set<Defect>(), [.serverErrorOnMalformed]] {
            let harness = await Harness(defects: defects)
            for index in 0..<5 {
                let (response, _) = await harness.webSignIn(.variant(caseID: "S12", index: index))
                if defects.isEmpty {
                    #expect((400..<500).contains(response.status), "S12/\(index)")
                } else if index != 4 {
                    // Variant 4 (non-JSON header) also fails to parse: all but none are 500.
                    #expect(response.status == 500, "S12/\(index)")
                }
            }
        }
    }

    @Test func keepSessionAfterRevoke() async throws {
        for defects in [Set<Defect>(), [.keepSessionAfterRevoke]] {
            let harness = await Harness(defects: defects)
            let flow = Flows.refreshRevoke
            let signIn = await harness.provider.signIn(clientID: Flows.webClientID, rawNonce: "n", user: MockUser.random())
            let session = try #require(harness.session(of: await harness.send(flow.steps[0].exchange!.request, signIn.placeholderValues)))
            #expect(await harness.send(flow.steps[5].exchange!.request, ["renewed_session": session]).status == 204)
            let after = await harness.send(flow.steps[7].exchange!.request, ["renewed_session": session])
            #expect(after.status == (defects.isEmpty ? 401 : 200))

            let other = MockUser.random()
            let login = await harness.webSignIn(user: other)
            let otherSession = try #require(harness.session(of: login.response))
            let jwt = await harness.provider.mintNotification(clientID: Flows.webClientID, event: NotificationEvent(kind: .consentRevoked, sub: other.sub))
            #expect(await harness.send(Flows.notifications.steps[0].exchange!.request, ["provider.notification": jwt]).status == 200)
            #expect(await harness.backend.isSessionAlive(otherSession) == !defects.isEmpty)
        }
    }

    @Test func skipRevoke() async throws {
        for defects in [Set<Defect>(), [.skipRevoke]] {
            let harness = await Harness(flows: [Flows.refreshRevoke], defects: defects)
            let flow = Flows.refreshRevoke
            let signIn = await harness.provider.signIn(clientID: Flows.webClientID, rawNonce: "n", user: MockUser.random())
            let session = try #require(harness.session(of: await harness.send(flow.steps[0].exchange!.request, signIn.placeholderValues)))
            #expect(await harness.send(flow.steps[5].exchange!.request, ["renewed_session": session]).status == 204)
            #expect(await harness.provider.records(at: .revoke).count == (defects.isEmpty ? 1 : 0))
        }
    }

    @Test func ignoreNotificationSignature() async throws {
        for defects in [Set<Defect>(), [.ignoreNotificationSignature]] {
            let harness = await Harness(defects: defects)
            let user = MockUser.random()
            let session = try #require(harness.session(of: await harness.webSignIn(user: user).response))
            let jwt = await harness.provider.mintNotification(
                clientID: Flows.webClientID, event: NotificationEvent(kind: .consentRevoked, sub: user.sub), forgery: .variant(caseID: "N2", index: 1))
            let response = await harness.send(Flows.notifications.steps[0].exchange!.request, ["provider.notification": jwt])
            #expect(response.status == (defects.isEmpty ? 401 : 200))
            #expect(await harness.backend.isSessionAlive(session) == defects.isEmpty)
        }
    }
}
