import FlowModel
import Foundation

/// FS409 two steps that can come next at the same point of the flow (`RequestGraph`) with
/// requests that could be the same request: the embedded mock backend, which answers a client
/// among the steps it may reach next, could not tell which one the client meant. Said at spec
/// time instead of a guess at run time.
struct AmbiguityRule: FlowRule {
    static let codes: [DiagnosticCode] = [.ambiguousRequest]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let flow = context.flow
        let graph = RequestGraph(flow: flow, machine: context.machine)
        let variables = Dictionary(flow.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        var points: [(description: String, steps: Set<Int>)] = [("at the start of the flow", graph.entry)]
        for (exit, steps) in graph.next.sorted(by: { ($0.key.step, $0.key.alternate ?? -1) < ($1.key.step, $1.key.alternate ?? -1) }) {
            let label = exit.alternate.flatMap { index in
                flow.step(exit.step).flatMap { $0.alternates.indices.contains(index) ? $0.alternates[index].label : nil }
            }
            points.append(("after step \(exit.step)" + (label.map { " (\($0))" } ?? ""), steps))
        }
        var reported = Set<[Int]>()
        for point in points {
            let steps = point.steps.sorted()
            for (position, first) in steps.enumerated() {
                for second in steps[(position + 1)...] {
                    guard let a = flow.step(first)?.exchange, let b = flow.step(second)?.exchange,
                        Self.overlap(a.request, b.request, variables: variables),
                        Self.answer(a.expectation) != Self.answer(b.expectation), reported.insert([first, second]).inserted
                    else { continue }
                    diagnostics.append(.warning(
                        .ambiguousRequest, b.request.location,
                        "steps \(first) and \(second) can both come next \(point.description) with the same request (\(b.request.method.uppercased()) \(b.request.path)) but expect different answers: the mock backend cannot tell which one a client means",
                        hint: "make the requests differ (a path, a field, a header value), or let one step follow the other",
                        related: [RelatedLocation(location: a.request.location, message: "step \(first)'s request")]))
                }
            }
        }
    }

    /// What an expectation asks of the answer, without where it is written: two steps that
    /// expect the same answer to the same request are not ambiguous.
    static func answer(_ expectation: Expectation?) -> String {
        guard let expectation else { return "" }
        var parts = ["\(expectation.status.map { "\($0.codes) \($0.classes)" } ?? "-")"]
        parts += expectation.headers.map { "h \($0.name.lowercased()) \($0.matcher)" }.sorted()
        parts += expectation.json.map { "j \($0.path) \($0.matcher)" }.sorted()
        parts += expectation.captures.map { "c \($0.name) \($0.source)" }.sorted()
        return parts.joined(separator: "\n")
    }

    /// Whether one concrete request could match both templates: the same method, and a path and
    /// a body each template's pattern admits (variables are their declared values; any other
    /// placeholder stands for any text).
    static func overlap(_ a: RequestTemplate, _ b: RequestTemplate, variables: [String: String]) -> Bool {
        guard a.method.uppercased() == b.method.uppercased() else { return false }
        guard texts(a.target, b.target, variables: variables) else { return false }
        let bodyA = trimmed(a.body ?? "")
        let bodyB = trimmed(b.body ?? "")
        if let jsonA = json(bodyA, variables: variables), let jsonB = json(bodyB, variables: variables) {
            return values(jsonA, jsonB)
        }
        return texts(bodyA, bodyB, variables: variables)
    }

    /// Without leading and trailing `whitespacesAndNewlines`. An ASCII body (nearly all) has no
    /// other whitespace than ASCII's and no Character of more than one scalar but CR LF, so the
    /// Character-level trim gives the same text at a fraction of Foundation's cost.
    static func trimmed(_ body: String) -> String {
        body.isASCII ? body.trimmingCharacters() : body.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static let wildcard = "\u{E000}"

    /// The template with variables filled in and other placeholders as `wildcard`.
    private static func resolve(_ template: String, variables: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            out += rest[..<open.lowerBound]
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            out += variables[name] ?? wildcard
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// Two texts with wildcards: each one's sample (wildcards as "x") fits the other's pattern.
    private static func texts(_ a: String, _ b: String, variables: [String: String]) -> Bool {
        let resolvedA = resolve(a, variables: variables)
        let resolvedB = resolve(b, variables: variables)
        return fits(resolvedA.replacingAll(wildcard, with: "x"), resolvedB) || fits(resolvedB.replacingAll(wildcard, with: "x"), resolvedA)
    }

    /// Whether `sample` fits `pattern`, whose wildcards stand for any run of characters but
    /// line terminators (the regular expression `^p0.*p1.*…$`). Without line terminators in
    /// either text, a wildcard is any run at all and the parts are found left to right on
    /// bytes (a regular expression compiled per comparison cost 80 000 instructions); with
    /// them, the regular expression decides.
    static func fits(_ sample: String, _ pattern: String) -> Bool {
        guard !hasLineTerminator(sample), !hasLineTerminator(pattern) else { return regexFits(sample, pattern) }
        let parts = pattern.components(separatedByString: wildcard).map { Array($0.utf8) }
        let text = Array(sample.utf8)
        guard let first = parts.first, let last = parts.last, text.starts(with: first) else { return false }
        if parts.count == 1 { return text.count == first.count }
        guard text.count >= first.count + last.count, text.suffix(last.count).elementsEqual(last) else { return false }
        var position = first.count
        let end = text.count - last.count
        for part in parts.dropFirst().dropLast() {
            guard let found = firstIndex(of: part, in: text, from: position, before: end) else { return false }
            position = found + part.count
        }
        return true
    }

    /// `fits` as a regular expression: the reference, and the path for text with line breaks.
    static func regexFits(_ sample: String, _ pattern: String) -> Bool {
        let regex = "^" + pattern.components(separatedBy: wildcard).map(NSRegularExpression.escapedPattern(for:)).joined(separator: ".*") + "$"
        return sample.range(of: regex, options: .regularExpression) != nil
    }

    /// Line feed, vertical tab, form feed, carriage return, U+0085, U+2028, U+2029 (what ICU's
    /// `.` and `$` treat as line ends).
    private static func hasLineTerminator(_ text: String) -> Bool {
        text.utf8.contains { (0x0A...0x0D).contains($0) } || text.utf8Contains("\u{85}") || text.utf8Contains("\u{2028}") || text.utf8Contains("\u{2029}")
    }

    /// Where `part` first starts in `text[from..<before]`, wholly inside it.
    private static func firstIndex(of part: [UInt8], in text: [UInt8], from start: Int, before end: Int) -> Int? {
        guard !part.isEmpty else { return start <= end ? start : nil }
        var index = start
        while index + part.count <= end {
            if text[index] == part[0], text[index..<(index + part.count)].elementsEqual(part) { return index }
            index += 1
        }
        return nil
    }

    private static func json(_ body: String, variables: [String: String]) -> JSONNode? {
        guard body.hasPrefix("{") || body.hasPrefix("[") else { return nil }
        return JSONNode.parse(resolve(body, variables: variables))
    }

    /// JSON values one request could satisfy both of: the same members (extra members are
    /// allowed by the matcher, so only shared names are compared), strings that fit.
    private static func values(_ a: JSONNode, _ b: JSONNode) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            return fits(x.replacingAll(wildcard, with: "x"), y) || fits(y.replacingAll(wildcard, with: "x"), x)
        case (.object(let x), .object(let y)):
            return Set(x.keys).intersection(y.keys).allSatisfy { values(x[$0]!, y[$0]!) }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { values($0, $1) }
        default:
            return a == b
        }
    }
}
