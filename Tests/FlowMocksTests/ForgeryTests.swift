import FlowModel
import Foundation
import JOSE
import Testing
@testable import FlowMocks
import FlowParser

/// The forged tokens are byte-exact: each test decodes what was minted and checks the one
/// property the case is about.
@Suite struct ForgeryTests {
    let clock = TestClock()

    func provider() async -> MockProvider {
        let provider = MockProvider(
            registrations: [], clock: clock.function, random: SeededRandom(seed: 11), keys: TestKeys.provider)
        await provider.setBaseURL(URL(string: "http://provider.test:4000")!)
        return provider
    }

    func mint(_ caseID: String, _ index: Int, nonce: String? = "raw") async -> (token: String, signIn: ProviderSignIn, provider: MockProvider) {
        let provider = await provider()
        let signIn = await provider.signIn(clientID: "com.app", rawNonce: nonce, user: MockUser.random(using: SeededRandom(seed: 1)), forgery: .variant(caseID: caseID, index: index))
        return (signIn.idToken!, signIn, provider)
    }

    func segments(_ token: String) -> [String] { token.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }

    func header(_ token: String) -> JSONObject? { try? StrictJSON.parseObject(Base64URL.decode(segments(token)[0]) ?? []) }
    func payloadText(_ token: String) -> String { String(decoding: Base64URL.decode(segments(token)[1]) ?? [], as: UTF8.self) }

    @Test func everyCatalogueCaseOfTheModelHasVariantsOrAnotherDriver() throws {
        // Some cases exist only for some providers (P9: a second issuer, C18: azp): each case
        // must have a driver for at least one built-in profile.
        for tokenCase in TokenCase.catalogue {
            let forgeries = BuiltinProviders.profiles.values.flatMap { profile in
                NonceTransform.allCases.flatMap { TokenForgery.variants(for: tokenCase.id, profile: profile, nonce: $0) }
            }
            let overrides = TokenEndpointOverride.variants(for: tokenCase.id)
            let drivenOtherwise = ["N1", "R1"].contains(tokenCase.id)
            #expect(!forgeries.isEmpty || !overrides.isEmpty || drivenOtherwise, "no driver for \(tokenCase.id)")
        }
        let google = try #require(BuiltinProviders.profiles["google"])
        #expect(TokenForgery.variants(for: "P9", profile: google, nonce: .verbatim).map(\.description) == ["iss accounts.google.com, another issuer the provider uses"])
        #expect(TokenForgery.variants(for: "C14", profile: google, nonce: .verbatim).isEmpty, "C14 is about a hashed nonce")
        #expect(TokenForgery.variants(for: "C17", profile: google, nonce: .verbatim).isEmpty, "Google sends no notifications")
        #expect(TokenForgery.variants(for: "S3").count == 6)
        #expect(TokenForgery.variants(for: "P1").first?.forgery == TokenForgery.none)
        #expect(TokenForgery.variant(caseID: "N2", index: 0).target == .notification)
        #expect(TokenForgery.variant(caseID: "C17", index: 1).target == .notification)
        #expect(TokenForgery.variant(caseID: "C17", index: 0).target == .idToken)
    }

    @Test func signatureForgeries() async throws {
        let flipped = await mint("S1", 0)
        let honest = await flipped.provider.signIn(clientID: "com.app", rawNonce: "raw", user: MockUser.random(using: SeededRandom(seed: 1)))
        #expect(segments(flipped.token)[2] != segments(honest.idToken!)[2])
        #expect(Base64URL.decode(segments(flipped.token)[2])?.count == 256)
        let stripped = await mint("S1", 1)
        #expect(stripped.token.hasSuffix("."))
        #expect(segments(stripped.token).count == 3)
        let other = await mint("S2", 0)
        #expect(header(other.token)?.string("kid") == (await other.provider.keyIDs()).first)
        let zeros = await mint("S6", 0)
        #expect(header(zeros.token)?.string("alg") == "ES256")
        #expect(Base64URL.decode(segments(zeros.token)[2]) == [UInt8](repeating: 0, count: 64))
    }

    @Test(arguments: 0..<6) func algNoneSpellings(_ index: Int) async {
        let token = await mint("S3", index).token
        #expect(header(token)?.string("alg") == ["none", "None", "NONE"][index % 3])
        #expect(segments(token)[2].isEmpty == (index < 3))
    }

    @Test func hmacKeyedWithThePublicKey() async throws {
        let minted = await mint("S4", 0)
        let kid = try #require(header(minted.token)?.string("kid"))
        #expect(header(minted.token)?.string("alg") == "HS256")
        let index = try #require((await minted.provider.keyIDs()).firstIndex(of: kid))
        let pem = TestKeys.provider.signing[index].publicKeyPEM
        let parsed = try JWS.parse(minted.token)
        #expect(parsed.verifySignature(algorithm: .HS256, key: .hmac(Array(pem.utf8))))
    }

    @Test func headerAlgLiesOverAValidRS256Signature() async throws {
        let minted = await mint("S5", 0)
        #expect(header(minted.token)?.string("alg") == "RS512")
        let parsed = try JWS.parse(minted.token)
        let index = try #require((await minted.provider.keyIDs()).firstIndex(of: parsed.keyID ?? ""))
        #expect(parsed.verifySignature(algorithm: .RS256, key: .rsa(TestKeys.provider.signing[index])))
    }

    @Test func keySelectionForgeries() async throws {
        let jwk = await mint("S7", 0)
        #expect(header(jwk.token)?["jwk"]?.objectValue?.string("kty") == "RSA")
        let jku = await mint("S8", 0)
        #expect(header(jku.token)?.string("jku") == "http://provider.test:4000/attacker/jwks.json")
        let x5u = await mint("S8", 1)
        #expect(header(x5u.token)?.string("x5u") == "http://provider.test:4000/attacker/key.pem")
        let long = await mint("S9", 2)
        #expect(header(long.token)?.string("kid")?.utf8.count == 10_240)
        let unknown = await mint("S10", 0)
        #expect(header(unknown.token)?.string("kid")?.hasPrefix("fs-unknown-") == true)
        let crit = await mint("S11", 0)
        #expect(header(crit.token)?["crit"] == .array(["x-unknown"]))
    }

    @Test func malformedShapes() async {
        #expect(segments(await mint("S12", 0).token).count == 2)
        #expect(segments(await mint("S12", 1).token).count == 4)
        #expect(segments(await mint("S12", 2).token).count == 5)
        let alphabet = await mint("S12", 3).token
        #expect(segments(alphabet)[2].contains { $0 == "+" || $0 == "/" })
        let notJSON = await mint("S12", 4).token
        #expect(Base64URL.decode(segments(notJSON)[0]) == Array("not json".utf8))
    }

    /// S13: one segment padded, canonically (length a multiple of 4), the others not; the
    /// signature verifies over the text as sent, so only the padding is wrong.
    @Test func paddingOnOneSegmentAlone() async throws {
        let keys = TestKeys.provider.signing
        for index in 0..<3 {
            let token = await mint("S13", index).token
            let parts = segments(token)
            #expect(parts.count == 3)
            for (position, part) in parts.enumerated() {
                #expect(part.hasSuffix("=") == (position == index), "S13/\(index) segment \(position): \(part.suffix(4))")
                if position == index { #expect(part.utf8.count % 4 == 0, "canonical padding") }
            }
            var unpadded = parts[index]
            while unpadded.hasSuffix("=") { unpadded.removeLast() }
            #expect(Base64URL.decode(unpadded) != nil)
            let signature = try #require(Base64URL.decode(index == 2 ? unpadded : parts[2]))
            let input = Array("\(parts[0]).\(parts[1])".utf8)
            #expect(keys.contains { $0.verify(signature, for: input, algorithm: .RS256) }, "S13/\(index): the signature covers the bytes sent")
        }
    }

    @Test func claimForgeries() async throws {
        #expect(payloadText(await mint("C1", 3).token).contains("\"iss\"") == false)
        #expect(payloadText(await mint("C1", 1).token).contains(#""iss":"https://appleid.apple.com/""#))
        #expect(payloadText(await mint("C3", 0).token).contains(#""aud":["com.app","com.attacker.app"]"#))
        #expect(payloadText(await mint("C6", 0).token).contains(#""exp":""#))
        #expect(payloadText(await mint("C11", 2).token).range(of: #""sub":\d+"#, options: .regularExpression) != nil)
        let duplicate = payloadText(await mint("C16", 0).token)
        #expect(duplicate.components(separatedBy: "\"aud\":").count == 3)
        // Each duplicated claim, in both orders: the right value first for even variants.
        for (position, entry) in TokenForgery.duplicatedClaims.enumerated() {
            for order in 0..<2 {
                let text = payloadText(await mint("C16", position * 2 + order).token)
                let values = text.components(separatedBy: "\"\(entry.claim)\":").dropFirst().map { String($0.prefix { $0 != "," && $0 != "}" }) }
                #expect(values.count == 2 && values[0] != values[1], "C16/\(position * 2 + order): \(values)")
            }
        }
        let expFirst = payloadText(await mint("C16", 2).token).components(separatedBy: "\"exp\":").dropFirst().compactMap { Int64($0.prefix { $0.isNumber }) }
        #expect(expFirst.count == 2 && expFirst[0] > expFirst[1], "the honest (later) exp first, the expired one last")
        #expect(payloadText(await mint("C20", 0).token).range(of: #""iat":"\d+""#, options: .regularExpression) != nil)
        #expect(payloadText(await mint("C21", 0).token).range(of: #""nbf":"\d+""#, options: .regularExpression) != nil)
        let p3 = payloadText(await mint("P3", 0).token)
        #expect(p3.contains(#""aud":["com.app"]"#))
        #expect(payloadText(await mint("P2", 1).token).contains(#""email_verified":true"#))
        #expect(payloadText(await mint("P8", 0).token).contains(#""real_user_status":3"#))
    }

    @Test func nonceForgeries() async throws {
        let expected = TokenMinter.sha256Hex("raw")
        let wrong = await mint("C12", 0)
        #expect(payloadText(wrong.token).contains("\"nonce\":\"\(expected)1\""))
        let absent = await mint("C13", 0)
        #expect(!payloadText(absent.token).contains("\"nonce\":"))
        #expect(payloadText(absent.token).contains(#""nonce_supported":true"#))
        let unsupported = await mint("P7", 0)
        #expect(payloadText(unsupported.token).contains(#""nonce_supported":false"#))
        let hashPosted = await mint("C14", 0)
        #expect(hashPosted.signIn.rawNonce == expected)
        #expect(payloadText(hashPosted.token).contains("\"nonce\":\"\(expected)\""))
    }

    @Test func notificationAndIDTokenSwap() async throws {
        let asIDToken = await mint("C17", 0)
        #expect(payloadText(asIDToken.token).contains("\"events\":"))
        let provider = await provider()
        let asNotification = await provider.mintNotification(
            clientID: "com.app", event: NotificationEvent(kind: .consentRevoked, sub: "s"), forgery: .variant(caseID: "C17", index: 1))
        #expect(!payloadText(asNotification).contains("\"events\":"))
        #expect(payloadText(asNotification).contains(#""sub":"s""#))
        let expired = await provider.mintNotification(clientID: "com.app", event: NotificationEvent(kind: .consentRevoked, sub: "s"), forgery: .variant(caseID: "N2", index: 4))
        let exp = try #require(try JWS.parse(expired).payload?.int64("exp"))
        #expect(exp < Int64(clock.now.timeIntervalSince1970))
    }

    @Test func notificationsCarryTheGenericForgeries() async throws {
        #expect(TokenForgery.variant(caseID: "S3", index: 0).canApply(to: .notification))
        #expect(!TokenForgery.variant(caseID: "C12", index: 0).canApply(to: .notification))
        #expect(!TokenForgery.variant(caseID: "N2", index: 0).canApply(to: .idToken))
        let provider = await provider()
        let event = NotificationEvent(kind: .emailEnabled, sub: "s", email: "e@x", isPrivateEmail: true)
        let none = await provider.mintNotification(clientID: "com.app", event: event, forgery: .variant(caseID: "S3", index: 1))
        #expect(header(none)?.string("alg") == "None")
        #expect(payloadText(none).contains("\"events\":"))
        let iss = await provider.mintNotification(clientID: "com.app", event: event, forgery: .variant(caseID: "C1", index: 3))
        #expect(!payloadText(iss).contains("\"iss\""))
        let booleans = await provider.mintNotification(clientID: "com.app", event: event, forgery: .variant(caseID: "P2", index: 1))
        #expect(payloadText(booleans).contains(#"\"is_private_email\":true"#))
        let noSub = await provider.mintNotification(clientID: "com.app", event: event, forgery: .variant(caseID: "C11", index: 0))
        #expect(!payloadText(noSub).contains(#"\"sub\""#))
        let nonce = await provider.mintNotification(clientID: "com.app", event: event, forgery: .variant(caseID: "C12", index: 0))
        #expect(!payloadText(nonce).contains("nonce"))
    }

    @Test func p6AddsUnusableKeysAndRotates() async throws {
        let minted = await mint("P6", 0)
        let jwks = try #require(try StrictJSON.parseObject(Array((await minted.provider.jwksJSON()).utf8)))
        let entries = jwks["keys"]?.arrayValue ?? []
        let keys = entries.compactMap { $0.objectValue }
        #expect(keys.count == entries.count)
        #expect(keys.contains { $0.string("kty") == "oct" })
        #expect(keys.contains { $0.string("use") == "enc" })
        #expect(keys.last?.string("kid") == header(minted.token)?.string("kid"))
    }
}
