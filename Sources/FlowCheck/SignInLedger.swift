import FlowMocks
import FlowModel

/// The authorization codes one item's sign-ins were given, and by which provider: when the item
/// has been judged, each provider forgets them (`MockProvider.forget(codes:)`), with the tokens
/// and records that came of them. A run's memory then holds the sign-ins in flight, not all of
/// them. Nothing of an item is forgotten before its result, evidence included, is made.
final class SignInLedger: Sendable {
    private let issued = Locked<[(provider: MockProvider, code: String)]>([])

    func note(_ code: String?, at provider: MockProvider) {
        guard let code else { return }
        issued.withLock { $0.append((provider, code)) }
    }

    /// Tells each provider to forget this item's codes.
    func release() async {
        let all = issued.withLock { issued in
            defer { issued.removeAll() }
            return issued
        }
        var byProvider: [ObjectIdentifier: (provider: MockProvider, codes: [String])] = [:]
        for (provider, code) in all { byProvider[ObjectIdentifier(provider), default: (provider, [])].codes.append(code) }
        for (provider, codes) in byProvider.values { await provider.forget(codes: codes) }
    }
}
