import Foundation
import JOSE

/// RSA keys for one provider: the signing keys its JWKS starts with, spares used for rotation
/// before new keys are generated, and an attacker key (S2, S7, S8, N2). Generating 2048-bit keys
/// takes a noticeable fraction of a second, so tests share one set across providers.
public final class ProviderKeyMaterial: Sendable {
    public let signing: [RSAKey]
    public let spares: [RSAKey]
    public let attacker: RSAKey

    public init(signing: [RSAKey], spares: [RSAKey], attacker: RSAKey) {
        precondition(!signing.isEmpty, "a provider needs at least one signing key")
        self.signing = signing
        self.spares = spares
        self.attacker = attacker
    }

    /// Fresh keys from OpenSSL: `signingKeys` in the JWKS (3, so P4 can use the 2nd and 3rd),
    /// `spares` for rotations.
    public static func generate(signingKeys: Int = 3, spares: Int = 2, bits: Int = 2048) throws -> ProviderKeyMaterial {
        ProviderKeyMaterial(
            signing: try (0..<max(1, signingKeys)).map { _ in try RSAKey.generate(bits: bits, primes: RSAKeyPool.primes) },
            spares: try (0..<spares).map { _ in try RSAKey.generate(bits: bits, primes: RSAKeyPool.primes) },
            attacker: try RSAKey.generate(bits: bits, primes: RSAKeyPool.primes))
    }
}

/// A key in the provider's JWKS.
struct ProviderKey: Sendable {
    var kid: String
    var key: RSAKey
    var jwk: JWK { key.publicJWK(kid: kid) }
}

