import FlowModel
import FlowParser
import Foundation
import OpenAPIKit
import Yams

/// Why a description could not be used; lint reports it at the flow's `openapi:` key.
public struct APIDescriptionProblem: Error, Hashable, Sendable {
    public var message: String
    public var hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }
}

/// Reads an OpenAPI 3.0 / 3.1 description (YAML or JSON) with OpenAPIKit: 3.0 documents are
/// converted to 3.1 by OpenAPIKitCompat, the document is validated with OpenAPIKit's default
/// validations (references inside the document must resolve), and references are looked up in
/// its components. Nothing is fetched: a reference to another file is a problem, not a download.
public enum APIDescriptionLoader {
    /// Bytes read at most (like a spec).
    public static let maximumBytes = 16 * 1024 * 1024
    /// Nesting levels (brackets, indentation pairs) accepted before Yams and OpenAPIKit recurse.
    public static let maximumNesting = 128

    /// An archive larger than this is not read (`restore`).
    public static let maximumArchiveBytes = 4 * maximumBytes

    /// Nodes of the YAML tree, aliases expanded, accepted before decoding.
    public static let maximumNodes = 2_000_000

    /// Nodes in `root` with aliases expanded, counted without recursion; stops just past `limit`.
    static func expandedNodeCount(_ root: Node, limit: Int) -> Int {
        var count = 0
        root.visitAll { _ in
            count += 1
            return count <= limit
        }
        return count
    }

    /// Where `openapi:` of a spec at `specFile` points: relative to the spec's folder.
    public static func resolve(_ written: String, specFile: String) -> Result<String, APIDescriptionProblem> {
        if written.utf8Contains("://") {
            return .failure(APIDescriptionProblem("openapi: '\(written)' is a URL; flowspec reads a file in the repository",
                                                  hint: "save the description beside the specs and write its path relative to this spec"))
        }
        if written.utf8.first == UInt8(ascii: "/") {
            return .failure(APIDescriptionProblem("openapi: '\(written)' is an absolute path",
                                                  hint: "write the path relative to this spec, e.g. `openapi: ../openapi/backend.yaml`"))
        }
        return .success(PathText.resolved(written, relativeTo: specFile))
    }

    /// Descriptions decoded by this process, by path, with the exact text each was decoded from:
    /// lint and the site's pages both ask for the description of a flow they share, and
    /// `serve` rebuilds after every edit — a file read again with the same text is not decoded
    /// again (a 6 KB description takes milliseconds through Yams and OpenAPIKit). Bounded: past
    /// `memoLimit` paths it starts over.
    private static let memo = Locked<[String: (text: String, result: Result<APIDescription, APIDescriptionProblem>)]>([:])
    static let memoLimit = 64

    /// Files being decoded in the background (`prefetch`): `load` of one of them waits for it.
    static let inFlight = Locked<[String: DispatchGroup]>([:])

    /// Starts decoding `files` on other threads, so that a later `load` finds them done: an
    /// incremental site build knows from its cache which descriptions its specs name before it
    /// has read and parsed them, and the first decode in a process is tens of milliseconds (the
    /// Swift runtime's first conformance lookups for OpenAPIKit's types).
    ///
    /// The decoding runs on threads of its own (`DetachedThread`), at most one per core, not on
    /// Dispatch's global queue: a full build asks for a description while it parses on every
    /// core with `concurrentPerform`, and a block sent to that queue waited for a worker until
    /// the parse ended: lint then waited for it, one core idle while the other decoded (40–60
    /// ms of a 2 000-flow build; `perf` samples by thread, docs/benchmarks.md).
    public static func prefetch(_ files: [String]) {
        var fresh: [String] = []
        for file in Set(files).sorted() {
            let group = DispatchGroup()
            group.enter()
            let started = inFlight.withLock { table -> Bool in
                guard table[file] == nil else { return false }
                table[file] = group
                return true
            }
            if started { fresh.append(file) } else { group.leave() }
        }
        guard !fresh.isEmpty else { return }
        let threads = prefetchQueue.withLock { queue -> Int in
            queue.pending += fresh
            let start = max(0, min(fresh.count, prefetchThreads - queue.threads))
            queue.threads += start
            return start
        }
        for _ in fresh { prefetchSignal.signal() }
        for _ in 0..<threads { DetachedThread.start { prefetchWork() } }
    }

    /// Files `prefetch` was given that no thread has taken yet, and the threads started (they
    /// stay for the process: `serve` prefetches at every rebuild, and a new thread's first
    /// allocations set up its heap, 0.7 M instructions).
    private static let prefetchQueue = Locked<(pending: [String], threads: Int)>(([], 0))
    /// Signalled once per pending file.
    private static let prefetchSignal = DispatchSemaphore(value: 0)
    private static let prefetchThreads = DetachedThread.processors

    /// A prefetch thread's loop: wait for a pending file, decode it, again.
    private static func prefetchWork() {
        while true {
            prefetchSignal.wait()
            let file = prefetchQueue.withLock { $0.pending.removeFirst() }
            _ = decodeOrRecall(file: file)
            let group = inFlight.withLock { $0.removeValue(forKey: file) }
            group?.leave()
        }
    }

    /// Takes the descriptions an earlier process archived (`archive(files:)`) as decoded: a
    /// file whose text is the archived text is not decoded again. A damaged archive, or one of
    /// another version, is ignored; descriptions this process already decoded are kept.
    public static func restore(_ archive: [UInt8]) {
        guard let entries = APIDescriptionArchive.read(archive) else { return }
        memo.withLock { memo in
            for entry in entries where memo[entry.file] == nil {
                if memo.count >= memoLimit { memo.removeAll() }
                memo[entry.file] = (entry.text, entry.result)
            }
        }
    }

    /// The descriptions of `files` this process has decoded (or restored), as an archive for
    /// `restore`; files it has not are left out.
    public static func archive(files: [String]) -> [UInt8] {
        let known = memo.withLock { memo in files.compactMap { file in memo[file].map { (file: file, text: $0.text, result: $0.result) } } }
        return APIDescriptionArchive.write(known.sorted { $0.file < $1.file })
    }

    public static func load(file: String) -> Result<APIDescription, APIDescriptionProblem> {
        if let group = inFlight.withLock({ $0[file] }) { group.wait() }
        return decodeOrRecall(file: file)
    }

    private static func decodeOrRecall(file: String) -> Result<APIDescription, APIDescriptionProblem> {
        let text: String
        do {
            text = try read(file)
        } catch let problem as APIDescriptionProblem {
            return .failure(problem)
        } catch {
            return .failure(APIDescriptionProblem("\(file): \(error)"))
        }
        if let known = memo.withLock({ $0[file] }), known.text == text { return known.result }
        let result = decode(text: text, file: file)
        memo.withLock { memo in
            if memo.count >= memoLimit, memo[file] == nil { memo.removeAll() }
            memo[file] = (text, result)
        }
        return result
    }

    private static func decode(text: String, file: String) -> Result<APIDescription, APIDescriptionProblem> {
        do {
            let nesting = YAMLNesting.deepest(in: text)
            guard nesting.depth <= maximumNesting else {
                throw APIDescriptionProblem("\(file):\(nesting.line): nested \(nesting.depth) levels deep; flowspec reads at most \(maximumNesting)")
            }
            let node: Node
            do {
                guard let composed = try Yams.compose(yaml: text, .basic, .default, .utf8) else { throw APIDescriptionProblem("\(file) is empty") }
                node = composed
            } catch let error as YamlError {
                throw APIDescriptionProblem("\(file) is not valid YAML or JSON: \(error)")
            }
            // YAML aliases are expanded when decoded: a few lines of nested aliases can stand for
            // billions of nodes ("billion laughs"). Count the expanded tree, stopping at the bound.
            guard expandedNodeCount(node, limit: maximumNodes) <= maximumNodes else {
                throw APIDescriptionProblem("\(file) expands to more than \(maximumNodes) YAML nodes (aliases of aliases?)",
                                            hint: "write the shared parts as $ref components instead of YAML aliases")
            }
            let version = node["openapi"]?.string ?? ""
            let document = try decode(node, version: version, file: file)
            // The default validations include "every reference inside the document resolves".
            _ = try validated(document, file: file)
            return .success(APIDescriptionBuilder(file: file, version: version, root: node).build(document))
        } catch let problem as APIDescriptionProblem {
            return .failure(problem)
        } catch {
            return .failure(APIDescriptionProblem("\(file): \(error)"))
        }
    }

    private static func read(_ file: String) throws -> String {
        switch FileReader.read(file, limit: maximumBytes) {
        case .failure(let problem) where problem.isMissing:
            throw APIDescriptionProblem("OpenAPI description \(file) does not exist", hint: "the path is relative to this spec's folder")
        case .failure(let problem):
            throw APIDescriptionProblem("OpenAPI description \(file) \(problem.isTooLarge ? "is over the \(maximumBytes)-byte limit" : problem.message)")
        case .success(let bytes):
            guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
                throw APIDescriptionProblem("OpenAPI description \(file) is not UTF-8 text")
            }
            return text
        }
    }

    /// Decodes with the OpenAPIKit module for the document's version.
    private static func decode(_ node: Node, version: String, file: String) throws -> OpenAPI.Document {
        let parts = version.split(separator: ".")
        guard parts.count == 3, parts[0] == "3", ["0", "1", "2"].contains(parts[1]) else {
            let written = version.isEmpty ? (node["swagger"]?.string.map { "swagger \($0)" } ?? "no `openapi` version") : "version \(version)"
            throw APIDescriptionProblem("\(file) has \(written); flowspec reads OpenAPI 3.0 and 3.1 descriptions")
        }
        do {
            if parts[1] == "0" { return try OpenAPI30Reader.decode(node) }
            return try NodeDecoder.decode(OpenAPI.Document.self, from: node)
        } catch {
            let reported = OpenAPI.Error(from: error)
            let at = reported.codingPathString.isEmpty ? "" : " at \(reported.codingPathString)"
            throw APIDescriptionProblem("\(file) is not a valid OpenAPI \(version) description\(at): \(reported.localizedDescription)")
        }
    }

    /// OpenAPIKit's default validations (unique operation ids, resolvable references…).
    private static func validated(_ document: OpenAPI.Document, file: String) throws -> OpenAPI.Document {
        do {
            _ = try document.validate(strict: false)
        } catch let errors as ValidationErrorCollection {
            let first = errors.values.first
            let at = first.map { $0.codingPathString.isEmpty ? "" : " at \($0.codingPathString)" } ?? ""
            throw APIDescriptionProblem("\(file) is not a valid OpenAPI description\(at): \(first?.reason ?? errors.localizedDescription)")
        }
        return document
    }
}
