import FlowModel
import FlowParser
import Foundation
import JOSE

/// Signing keys: the JWKS, rotation, the attacker's key, and the minter for each forgery.
extension MockProvider {
    // MARK: Keys

    /// Whether any key has been generated or loaded yet (a run without sign-ins makes none).
    public var hasKeys: Bool { signingKey != nil }

    /// The JWKS starts with 3 signing keys (P4 signs with the 2nd and 3rd): taken on first use
    /// from `RSAKeyPool` (made on every core). When the run will not sign with the 2nd and 3rd
    /// (`limitPrivateSigningKeys`), they are decoys: public keys whose private half nobody holds.
    func ensureKeys() {
        guard signingKey == nil else { return }
        let material: [RSAKey]
        if let givenMaterial {
            material = givenMaterial.signing
            spares = givenMaterial.spares
            attackerKey = givenMaterial.attacker
        } else {
            material = Self.generate(privateSigningKeys) + (privateSigningKeys..<3).map { _ in Self.decoy() }
        }
        var seen = Set<String>()
        for key in material {
            var kid = random.keyID()
            while !seen.insert(kid).inserted || kid == attackerKeyID { kid = random.keyID() }
            entries.append(.signing(ProviderKey(kid: kid, key: key)))
        }
        signingKey = signingKeys.first
    }

    /// The keys this provider will take from `RSAKeyPool` at its first use: 0 once it has its
    /// keys or when they were given.
    public var poolKeysAtFirstUse: Int { signingKey != nil || givenMaterial != nil ? 0 : privateSigningKeys }

    /// Makes the JWKS now rather than at the first sign-in or JWKS request.
    public func prepareKeys() { ensureKeys() }

    /// Only the first `count` (1…3) of the JWKS's three signing keys get a private half; the
    /// others are decoys. For a run whose plan never signs with the 2nd or 3rd key (no P4), so
    /// that it does not wait for keys it will not use. Before the first sign-in only.
    public func limitPrivateSigningKeys(to count: Int) {
        guard signingKey == nil, givenMaterial == nil else { return }
        privateSigningKeys = min(3, max(1, count))
    }

    /// A JWKS entry no one can sign for: an RSA public key (e = 65537) whose modulus is 2048
    /// random bits, odd, top bit set. A verifier cannot tell it from a real key without factoring
    /// it — and a real key whose private half was thrown away is exactly what a decoy is.
    static func decoy() -> RSAKey {
        var modulus = SystemRandom().bytes(256)
        modulus[0] |= 0x80
        modulus[255] |= 0x01
        // A public JWK with a well-formed modulus always loads.
        return try! RSAKey(jwk: JWK(kty: "RSA", n: Base64URL.encode(modulus), e: "AQAB"))
    }

    /// The attacker's key (S2, S7, S8, N2, P6's `enc` entry): one per process for every provider
    /// — it is in no provider's signing keys, so sharing it changes nothing a backend can see.
    func attacker() -> RSAKey {
        ensureKeys()
        if let attackerKey { return attackerKey }
        let key = RSAKeyPool.shared.attacker()
        attackerKey = key
        return key
    }

    /// Fresh keys from the process's pool (made ahead on every core when the run asked for them).
    static func generate(_ count: Int) -> [RSAKey] {
        RSAKeyPool.shared.take(count)
    }

    var signing: ProviderKey {
        ensureKeys()
        return signingKey!
    }

    /// Signing keys in JWKS order.
    var signingKeys: [ProviderKey] {
        entries.compactMap { if case .signing(let key) = $0 { key } else { nil } }
    }

    /// The JWKS as served now (including any unusable entries added for P6).
    public func jwksJSON() -> String {
        jwksObject().jsonString()
    }

    func jwksObject() -> JSONNode {
        ensureKeys()
        let keys: [JSONNode] = entries.map { entry in
            switch entry {
            case .signing(let key): .object(key.jwk.jsonObject)
            case .unusable(let object): .object(object)
            }
        }
        return .object(["keys": .array(keys)])
    }

    /// Key ids of the usable signing keys, in JWKS order.
    public func keyIDs() -> [String] {
        ensureKeys()
        return signingKeys.map(\.kid)
    }

    /// The `kid` ID tokens are signed with now.
    public func currentKeyID() -> String { signing.kid }

    /// Adds a new signing key and signs with it from now on. The new `kid` is in every JWKS
    /// served after this call, so a backend only knows it once it re-fetches (P5).
    @discardableResult
    public func rotateSigningKey() -> String {
        ensureKeys()
        let key = spares.isEmpty ? Self.generate(1)[0] : spares.removeFirst()
        let kid = freshKeyID()
        let providerKey = ProviderKey(kid: kid, key: key)
        entries.append(.signing(providerKey))
        signingKey = providerKey
        return kid
    }

    /// P6: an `oct` key and an RSA `use:"enc"` key the backend must skip.
    func addUnusableKeys() {
        let oct: JSONObject = ["kty": "oct", "kid": .string(freshKeyID()), "k": .string(Base64URL.encode(random.bytes(32)))]
        var enc = attacker().publicJWK(kid: freshKeyID(), alg: "RSA-OAEP", use: "enc").jsonObject
        enc["alg"] = "RSA-OAEP"
        entries.append(.unusable(oct))
        entries.append(.unusable(enc))
    }

    func freshKeyID() -> String {
        let taken = Set(signingKeys.map(\.kid) + [attackerKeyID])
        var kid = random.keyID()
        while taken.contains(kid) { kid = random.keyID() }
        return kid
    }

    var now: Int64 { Int64(clock().timeIntervalSince1970.rounded(.down)) }

    func minter(for forgery: TokenForgery = .none) -> TokenMinter {
        let signing = self.signing
        return TokenMinter(
            profile: profile, issuers: issuers, keys: signingKeys, signing: signing,
            attackerKey: forgery.needsAttackerKey ? attacker() : nil, attackerKeyID: attackerKeyID,
            baseURL: base, now: now, random: random)
    }
}
