@testable import FlowCheck
import FlowMocks
import FlowModel
import Testing

/// A transport failure's keyed sentence says in English exactly what its description says: the
/// report's text, which the site shows when a page's language has no sentence for the key, and
/// which `VerdictMessage(quoting:)` compares before it keeps the key.
@Suite struct TransportMessageTests {
    @Test func everyFailureSaysItsDescription() {
        let failures: [TransportFailure] = [.timeout(seconds: 10), .timeout(seconds: 2.5), .connectionRefused, .connectionReset,
                                            .invalidURL("ht tp://x"), .other("TLS handshake failed")]
        for failure in failures {
            #expect(failure.message.english == failure.description, "\(failure)")
        }
        #expect(TransportFailure.timeout(seconds: 10).message.key == .transportTimeout)
    }
}
