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
            signing: try (0..<max(1, signingKeys)).map { _ in try RSAKey.generate(bits: bits) },
            spares: try (0..<spares).map { _ in try RSAKey.generate(bits: bits) },
            attacker: try RSAKey.generate(bits: bits))
    }
}

/// A key in the provider's JWKS.
struct ProviderKey: Sendable {
    var kid: String
    var key: RSAKey
    var jwk: JWK { key.publicJWK(kid: kid) }
}

/// Keys generated on several threads at once, read back in index order.
final class OrderedKeySlots: @unchecked Sendable {
    // Written once per index from `concurrentPerform`, under the lock; read after it returns.
    private var slots: [RSAKey?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ key: RSAKey) {
        lock.lock()
        slots[index] = key
        lock.unlock()
    }

    var values: [RSAKey] {
        lock.lock()
        defer { lock.unlock() }
        return slots.map { $0! }
    }
}
