import FlowMocks

/// The evidence of a submission, made only when the item's verdict keeps it: redacting the
/// request and response (regular expressions over headers and bodies) and decoding the token
/// are wasted on a passing case, which keeps no evidence.
struct EvidenceDraft {
    var request: OutgoingRequest?
    var response: HTTPResult?
    var token: String?
    var notes: [String] = []
    private var made: Evidence?

    init(request: OutgoingRequest?, response: HTTPResult?, token: String?, notes: [String] = []) {
        self.request = request
        self.response = response
        self.token = token
        self.notes = notes
    }

    init(_ evidence: Evidence) { made = evidence }

    func make() -> Evidence { made ?? Walker.evidence(request: request, response: response, token: token, notes: notes) }
}
