import FlowModel

/// Where each client is in its flow's state machine, so the embedded mock backend can answer
/// the same request differently depending on the state: a second check-out of the same cart
/// matches the spec's later "check out again → 409" step, not the first check-out.
///
/// A conversation starts with a request that carries no value the mock handed out, and is
/// found again by any value it handed out since (a captured session token, a created
/// resource's id, in the path, the query, a header or a JSON body). The steps it may reach
/// next are `RequestGraph`'s, after the exit its last answer took.
struct Conversations {
    struct Conversation {
        var flowIndex: Int
        /// The request steps the client may send next.
        var next: Set<Int>
        /// Capture name → the value handed out for it, for `{{capture}}` in later answers.
        var values: [String: String]
    }

    typealias Exit = RequestGraph.Exit

    /// Per flow: where requests can come next.
    private let graphs: [RequestGraph]
    private var byValue: [String: Int] = [:]
    private var conversations: [Int: Conversation] = [:]
    private var nextID = 1
    /// Conversations kept at most: a long-running `flowspec mock --backend` under load forgets
    /// the oldest clients (and the values handed to them) instead of growing without bound.
    static let limit = 20_000
    /// Ids in the order they started, for forgetting the oldest.
    private var started: [Int] = []
    private var oldest = 0

    init(flows: [Flow]) {
        graphs = flows.map { RequestGraph(flow: $0) }
    }

    /// The conversation a request belongs to: the first value in it the mock handed out, whole
    /// or inside a longer string (an altered cursor `x…`, a forged `forged-…` token still belong
    /// to the client that was handed the original).
    func find(in request: MockHTTPRequest) -> Int? {
        let values = Self.values(in: request)
        for value in values {
            if let id = byValue[value], conversations[id] != nil { return id }
        }
        for value in values {
            for token in Self.handedOutTokens(in: value) {
                if let id = byValue[token], conversations[id] != nil { return id }
            }
        }
        return nil
    }

    /// Values the mock mints (`fs_` and 32 letters or digits) found inside `text`.
    static func handedOutTokens(in text: String) -> [String] {
        let bytes = Array(text.utf8)
        guard bytes.count > tokenLength else { return [] }
        var found: [String] = []
        var index = 0
        while index + tokenLength <= bytes.count {
            if bytes[index] == UInt8(ascii: "f"), bytes[index + 1] == UInt8(ascii: "s"), bytes[index + 2] == UInt8(ascii: "_") {
                let candidate = bytes[index..<(index + tokenLength)]
                if candidate.dropFirst(3).allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) {
                    found.append(String(decoding: candidate, as: UTF8.self))
                    index += tokenLength
                    continue
                }
            }
            index += 1
        }
        return found
    }

    /// Length of a value the mock mints: `fs_` + 32 characters (`MockBackend.freshToken`).
    static let tokenLength = 35

    /// The steps this request may be answered at: the conversation's next request steps, or
    /// for a request of no conversation the entry steps of every flow.
    func eligible(_ id: Int?) -> (flowIndex: Int?, steps: (Int, Int) -> Bool) {
        guard let id, let conversation = conversations[id] else {
            return (nil, { [graphs] flowIndex, step in graphs.indices.contains(flowIndex) && graphs[flowIndex].entry.contains(step) })
        }
        let steps = conversation.next
        return (conversation.flowIndex, { flowIndex, step in flowIndex == conversation.flowIndex && steps.contains(step) })
    }

    /// The values handed out to a conversation so far, by capture name.
    func values(of id: Int?) -> [String: String] {
        id.flatMap { conversations[$0]?.values } ?? [:]
    }

    /// Records how the conversation (a new one when nil) was answered: at which exit of which
    /// step (nil: by no step of the spec, a generic rejection — the client stays where it was),
    /// handing out `values`; returns its id.
    @discardableResult
    mutating func answered(_ id: Int?, flowIndex: Int, exit: Exit?, handedOut values: [String: String]) -> Int {
        let id = id ?? {
            defer { nextID += 1 }
            return nextID
        }()
        if conversations[id] == nil {
            started.append(id)
            forgetOldest()
        }
        var conversation = conversations[id] ?? Conversation(flowIndex: flowIndex, next: graphs[flowIndex].entry, values: [:])
        if let exit, conversation.flowIndex == flowIndex {
            conversation.next = graphs[flowIndex].next[exit] ?? []
        }
        for (name, value) in values where !value.isEmpty {
            conversation.values[name] = value
            byValue[value] = id
        }
        conversations[id] = conversation
        return id
    }

    private mutating func forgetOldest() {
        while started.count - oldest > Self.limit {
            let id = started[oldest]
            oldest += 1
            for value in conversations[id]?.values.values ?? [:].values where byValue[value] == id { byValue[value] = nil }
            conversations[id] = nil
        }
        if oldest > Self.limit {
            started.removeFirst(oldest)
            oldest = 0
        }
    }

    /// The strings of a request that could be values the mock handed out: path segments, query
    /// values, header values (and the token of `Bearer x`), JSON string members, form values.
    static func values(in request: MockHTTPRequest) -> [String] {
        var values: [String] = []
        if let token = request.bearerToken { values.append(token) }
        values += request.path.split(separator: "/").map(String.init)
        values += request.queryItems.map(\.1)
        for header in request.headers {
            values.append(header.value)
            if header.name.caseInsensitiveEquals("cookie") {
                for pair in header.value.split(separator: ";") {
                    if let value = pair.split(separator: "=", maxSplits: 1).dropFirst().first { values.append(value.trimmingCharacters(in: .whitespaces)) }
                }
            }
        }
        if let body = JSONNode.parse(request.body) {
            collect(body, into: &values)
        } else {
            values += request.formFields.map(\.1)
        }
        return values
    }

    private static func collect(_ value: JSONNode, into values: inout [String]) {
        switch value {
        case .string(let text): values.append(text)
        case .array(let elements): for element in elements { collect(element, into: &values) }
        case .object(let members): for key in members.keys.sorted() { collect(members[key]!, into: &values) }
        default: break
        }
    }
}
