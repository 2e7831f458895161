import FlowExport
import FlowModel
import FlowParser
import Foundation
import Yams

/// What importing an Arazzo document produced: one flow per workflow, and a report.
public struct ArazzoImportResult: Sendable {
    public var flows: [Flow]
    public var report: [Diagnostic]
}

/// Reads an Arazzo 1.0 document (YAML or JSON) into flows, one per workflow: `flowspec import`
/// for documents from `export --format arazzo` (which import back whole, through their
/// `x-flowspec` extensions) and from other tools (each step an `app → backend` call, its
/// success criteria the `expect` block, its outputs the captures, its actions the branches).
/// The flows have no prose: a note at the top says what to add.
public struct ArazzoImporter: Sendable {
    public init() {}

    /// A YAML or JSON document whose top level has an `arazzo` key.
    public static func recognizes(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        for line in head.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") || text == "---" { continue }
            if text.hasPrefix("{") { return head.contains("\"arazzo\"") }
            return text.hasPrefix("arazzo:")
        }
        return false
    }

    /// `source(url)` reads a source description the document names (for `operationId`s).
    public func importDocument(bytes: [UInt8], file: String, source: (String) -> [UInt8]? = { _ in nil }) -> ArazzoImportResult {
        let text = SourceText(file: file, bytes: bytes)
        if let problem = text.unusableReason() { return ArazzoImportResult(flows: [], report: [problem.diagnostic(in: text)]) }
        guard bytes.count <= SpecParser().maximumFileSize else {
            return ArazzoImportResult(flows: [], report: [Self.problem(file, line: 1, "the document is larger than \(SpecParser().maximumFileSize) bytes")])
        }
        let yaml = String(decoding: bytes, as: UTF8.self)
        let nesting = maximumNesting(of: yaml)
        guard nesting.depth <= 64 else {
            return ArazzoImportResult(flows: [], report: [Self.problem(file, line: nesting.line, "the document nests deeper than 64 levels")])
        }
        let document: ArazzoDocument
        do {
            guard let node = try Yams.compose(yaml: yaml) else {
                return ArazzoImportResult(flows: [], report: [Self.problem(file, line: 1, "the document is empty")])
            }
            // Yams resolves an alias to its anchored subtree, so decoding visits it at every use
            // (a "billion laughs" document would take hours). Without aliases a document has
            // fewer nodes than bytes: more means aliases multiply it, and it is refused.
            if Self.nodeCount(of: node, upTo: bytes.count + 16) > bytes.count + 16 {
                return ArazzoImportResult(flows: [], report: [Self.problem(file, line: 1, "YAML aliases (*name) make the document larger than it is written: write the values out")])
            }
            document = try YAMLDecoder().decode(ArazzoDocument.self, from: node)
        } catch let error as YamlError {
            let (mark, problem) = FrontMatterParser.describe(error)
            return ArazzoImportResult(flows: [], report: [Self.problem(file, line: mark?.line ?? 1, "not YAML or JSON: \(problem)")])
        } catch {
            return ArazzoImportResult(flows: [], report: [Self.problem(file, line: 1, "not an Arazzo document: \(Self.describe(error))")])
        }
        var reader = ArazzoReader(file: file, operations: OperationIndex(document: document, source: source))
        let flows = document.workflows.map { reader.flow(from: $0) }
        return ArazzoImportResult(flows: flows, report: reader.report.sortedForOutput())
    }

    /// Nodes of the tree, counted without recursion, stopping past `limit`.
    static func nodeCount(of root: Node, upTo limit: Int) -> Int {
        var stack = [root]
        var count = 0
        while let node = stack.popLast(), count <= limit {
            count += 1
            switch node {
            case .mapping(let mapping): for (key, value) in mapping { stack.append(key); stack.append(value) }
            case .sequence(let sequence): stack.append(contentsOf: sequence)
            case .scalar, .alias: continue
            }
        }
        return count
    }

    static func problem(_ file: String, line: Int, _ message: String) -> Diagnostic {
        Diagnostic(.arazzoUnmapped, severity: .error, location: SourceLocation(file: file, line: max(line, 1), column: 1), message: message)
    }

    /// A decoding error as "missing `workflows`" or "at workflows[0].steps: …".
    static func describe(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ keys: [CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing `\(key.stringValue)`" + (context.codingPath.isEmpty ? "" : " in \(path(context.codingPath))")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// Method and path of each `operationId` in the OpenAPI source descriptions that could be read.
struct OperationIndex {
    var byID: [String: (method: String, path: String)] = [:]

    init(document: ArazzoDocument, source: (String) -> [UInt8]?) {
        for description in document.sourceDescriptions where description.type != "arazzo" {
            guard let bytes = source(description.url), maximumNesting(of: String(decoding: bytes, as: UTF8.self)).depth <= 64,
                  let root = try? Yams.compose(yaml: String(decoding: bytes, as: UTF8.self)),
                  let paths = root["paths"]?.mapping else { continue }
            for (path, item) in paths {
                for (method, operation) in item.mapping ?? [:] {
                    guard let id = operation["operationId"]?.string, let path = path.string, let method = method.string else { continue }
                    byID[id] = byID[id] ?? (method.uppercased(), path)
                }
            }
        }
    }
}
