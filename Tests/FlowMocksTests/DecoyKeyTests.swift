import FlowModel
import Foundation
import JOSE
import Testing
@testable import FlowMocks

/// A provider told that the run never signs with its 2nd and 3rd keys still serves three RSA
/// keys in its JWKS — the same shape as always — but only the first can sign.
@Suite struct DecoyKeyTests {
    func keysOfJWKS(_ provider: MockProvider) async throws -> [RSAKey] {
        let jwks = try JWKS(json: Array(await provider.jwksJSON().utf8))
        return try jwks.keys.map { try RSAKey(jwk: $0) }
    }

    @Test func limitedProviderServesThreeKeysOfWhichOnlyTheFirstSigns() async throws {
        let provider = MockProvider(registrations: [])
        await provider.limitPrivateSigningKeys(to: 1)
        let served = try await keysOfJWKS(provider)
        #expect(served.count == 3)
        #expect(Set(served.map { $0.publicJWK(kid: nil).n }).count == 3, "three distinct moduli")
        #expect(served.allSatisfy { $0.bits == 2048 })
        let held = await provider.signingKeys
        #expect(held.count == 3)
        #expect(held[0].key.hasPrivateKey)
        #expect(!held[1].key.hasPrivateKey && !held[2].key.hasPrivateKey, "decoys have no private half")
        // The first key signs what the provider issues, and its JWKS entry verifies it.
        let signIn = await provider.signIn(clientID: "com.app", rawNonce: "n", user: MockUser.random(using: SeededRandom(seed: 3)))
        let token = try #require(signIn.idToken)
        let jwks = try JWKS(json: Array(await provider.jwksJSON().utf8))
        let verified = JWTVerifier(expectedAlgorithm: .RS256).verify(token, jwks: jwks)
        #expect((try? verified.get()) != nil, "\(verified)")
    }

    @Test func unlimitedProviderHoldsThreePrivateKeys() async throws {
        let provider = MockProvider(registrations: [])
        _ = await provider.keyIDs()
        let held = await provider.signingKeys
        #expect(held.count == 3 && held.allSatisfy { $0.key.hasPrivateKey })
    }

    @Test func theAttackerKeyIsOnePerProcessAndInNoJWKS() async throws {
        let a = MockProvider(registrations: [])
        let b = MockProvider(registrations: [])
        let keyA = await a.attacker()
        let keyB = await b.attacker()
        #expect(keyA === keyB)
        let served = try await keysOfJWKS(a) + keysOfJWKS(b)
        #expect(!served.contains { $0.publicJWK(kid: nil).n == keyA.publicJWK(kid: nil).n })
    }
}
