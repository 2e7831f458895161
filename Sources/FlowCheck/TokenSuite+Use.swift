import FlowMocks
import FlowModel

// What a token case says about a request and its answer: the keyed sentence of what came back,
// the key of a variant's catalogue text, and the follow-up use of what a rejected request
// returned (`step N METHOD /path → HTTP s`).
extension TokenSuiteCase {
    /// The key of a variant's catalogue text (`variant_S3_0`), quoted by a sentence as
    /// `variant.key` so pages say it in their language (label `message_variant_S3_0`); nil when
    /// the description was adapted to the provider (P2, P8, P9, C13, N2 for some profiles).
    static func variantTextKey(_ work: TokenCaseWork) -> String? {
        let id = work.tokenCase.id
        let index = work.forgery?.index ?? work.variant ?? 0
        let fixed: String? = switch id {
        case "P1": TokenForgery.none.variantDescription
        case "X1", "X2", "X3": TokenEndpointOverride.variants(for: id).dropFirst(index).first?.description
        default: TokenForgery.catalogue[id].flatMap { $0.indices.contains(index) ? $0[index] : nil }
        }
        guard let fixed, fixed == work.variantDescription else { return nil }
        return "variant_\(id)_\(index)"
    }

    /// What came back, as a keyed sentence: `HTTP 401`, or why nothing did.
    static func describe(_ response: HTTPResult) -> VerdictMessage {
        if let status = response.status { return VerdictMessage(.httpStatus, ["status": String(status)]) }
        return response.failure?.message ?? VerdictMessage(.noAnswer)
    }

    struct Use {
        var works: Bool
        /// `step N METHOD /path → what came back`, keyed so pages say it in their language.
        var message: VerdictMessage
        var description: String { message.english }

        /// `key`'s sentence quoting the use as `probe`.
        static func quoted(_ key: MessageKey, _ use: Use) -> VerdictMessage {
            var message = VerdictMessage(key)
            message.quote(use.message, as: "probe")
            return message
        }

        init(works: Bool, step: Int, request: OutgoingRequest, response: HTTPResult) {
            self.works = works
            var message = VerdictMessage(.stepCall, ["step": String(step), "method": request.method, "path": Walker.path(of: request.url)])
            message.quote(TokenSuiteCase.describe(response), as: "response")
            self.message = message
        }
    }

    /// Sends the first later request step that uses one of `names` (e.g. the captured session
    /// on an authenticated call). Works = 2xx.
    func useCaptured(_ walker: inout Walker, names: Set<String>, after step: Step) async -> Use? {
        let later = flow.steps.filter { $0.number > step.number }.sorted { $0.number < $1.number }
        guard let user = later.first(where: { candidate in
            guard let exchange = candidate.exchange else { return false }
            return names.contains { usesName($0, exchange.request) }
        }), let exchange = user.exchange else { return nil }
        guard let request = try? walker.interpolator.request(exchange.request, baseURL: walker.env.backendURL) else { return nil }
        let response = await walker.env.transport.send(request, timeout: walker.env.timeout)
        let works = response.status.map { (200..<300).contains($0) } ?? false
        return Use(works: works, step: user.number, request: request, response: response)
    }

    /// Whether the session captured earlier still works: the first GET step after `step` that
    /// uses a captured value.
    func sessionProbe(_ walker: inout Walker, after step: Step) async -> Use? {
        let captureNames = Set(flow.steps.compactMap(\.exchange?.expectation).flatMap(\.captures).map(\.name)).filter { walker.values[$0] != nil }
        let later = flow.steps.filter { $0.number > step.number && $0.exchange?.request.method.uppercased() == "GET" }.sorted { $0.number < $1.number }
        guard let probe = later.first(where: { candidate in captureNames.contains { usesName($0, candidate.exchange!.request) } }),
              let request = try? walker.interpolator.request(probe.exchange!.request, baseURL: walker.env.backendURL) else { return nil }
        let response = await walker.env.transport.send(request, timeout: walker.env.timeout)
        let works = response.status.map { (200..<300).contains($0) } ?? false
        return Use(works: works, step: probe.number, request: request, response: response)
    }
}
