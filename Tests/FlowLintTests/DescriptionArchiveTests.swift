import FlowLint
import FlowModel
import Foundation
import TestSupport
import Testing
@testable import FlowOpenAPI

/// Decoded descriptions kept between processes (`APIDescriptionArchive`): what is read back is
/// the description that was written, field by field; a damaged archive is nothing; an archived
/// description is used for its exact text only.
@Suite struct DescriptionArchiveTests {
    /// The descriptions to round-trip: the repository's, both versions' schema semantics, a
    /// recursive schema, and one that cannot be used (a problem is archived too).
    static func samples() throws -> [(name: String, text: String)] {
        let recursive = """
            openapi: 3.1.0
            info: { title: t, version: '1' }
            paths:
              /tree:
                post:
                  requestBody:
                    content:
                      application/json:
                        schema: { $ref: '#/components/schemas/Node' }
                  responses:
                    default: { description: any }
            components:
              schemas:
                Node:
                  type: object
                  additionalProperties: { type: integer }
                  patternProperties: { '^x-': { type: string } }
                  properties:
                    child: { $ref: '#/components/schemas/Node' }
                    kids: { type: array, items: { $ref: '#/components/schemas/Node' } }
                    either: { oneOf: [{ type: string }, { not: { type: integer } }] }
                    both: { allOf: [{ type: object }, { anyOf: [{ type: 'null' }, {}] }] }
                Alias: { $ref: '#/components/schemas/Node' }
            """
        let unusable = "openapi: 3.1.0\ninfo: { title: x, version: '1' }\npaths:\n  /ping:\n    get:\n      responses:\n        '200': { $ref: '#/components/responses/Nope' }\n"
        return [
            ("tvl-backend.yaml", try OpenAPILintTests.repositoryFile("openapi/tvl-backend.yaml")),
            ("finflow-backend.yaml", try OpenAPILintTests.repositoryFile("openapi/finflow-backend.yaml")),
            ("v30.yaml", OpenAPILintTests.semanticsDescription(version: "3.0.3")),
            ("v31.yaml", OpenAPILintTests.semanticsDescription(version: "3.1.0")),
            ("recursive.yaml", recursive),
            ("unusable.yaml", unusable),
        ]
    }

    /// Each sample decoded from a file of its own.
    static func decoded() throws -> (folder: URL, entries: [APIDescriptionArchive.Entry]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var entries: [APIDescriptionArchive.Entry] = []
        for (name, text) in try samples() {
            let file = folder.appendingPathComponent(name).path
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            entries.append((file, text, APIDescriptionLoader.load(file: file)))
        }
        return (folder, entries)
    }

    @Test func archiveReadsBackEveryField() throws {
        let (folder, entries) = try Self.decoded()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(entries.filter { (try? $0.result.get()) == nil }.count == 1, "only unusable.yaml fails")
        let read = try #require(APIDescriptionArchive.read(APIDescriptionArchive.write(entries)))
        try #require(read.count == entries.count)
        for (original, back) in zip(entries, read) {
            #expect(back.file == original.file)
            #expect(back.text == original.text)
            switch (original.result, back.result) {
            case (.failure(let a), .failure(let b)):
                #expect(a == b)
            case (.success(let a), .success(let b)):
                Self.expectSame(a, b)
            default:
                Issue.record("\(original.file): one side decoded, the other did not")
            }
        }
    }

    /// Every field a reader of `APIDescription` can see, compared one by one.
    static func expectSame(_ a: APIDescription, _ b: APIDescription) {
        #expect(a.file == b.file)
        #expect(a.version == b.version)
        #expect(a.basePaths == b.basePaths)
        #expect(a.lines == b.lines)
        #expect(a.components == b.components)
        #expect(!a.paths.isEmpty)
        #expect(a.paths.map(\.template) == b.paths.map(\.template))
        for (pathA, pathB) in zip(a.paths, b.paths) {
            #expect(pathA.operations.count == pathB.operations.count)
            for (x, y) in zip(pathA.operations, pathB.operations) {
                #expect(x.method == y.method)
                #expect(x.operationID == y.operationID)
                #expect(x.summary == y.summary)
                #expect(x.location == y.location)
                #expect(x.requestBody?.required == y.requestBody?.required)
                #expect(x.requestBody?.location == y.requestBody?.location)
                expectSame(x.requestBody?.content ?? [], y.requestBody?.content ?? [])
                #expect(x.responses.map(\.status) == y.responses.map(\.status))
                #expect(x.responses.map(\.location) == y.responses.map(\.location))
                for (r, s) in zip(x.responses, y.responses) { expectSame(r.content, s.content) }
            }
        }
    }

    static func expectSame(_ a: [APIContent], _ b: [APIContent]) {
        #expect(a.map(\.mediaType) == b.map(\.mediaType))
        #expect(a.map(\.location) == b.map(\.location))
        #expect(a.map(\.schema) == b.map(\.schema))
        #expect(a.map { $0.schemaText?.text } == b.map { $0.schemaText?.text })
    }

    /// Cut anywhere, or of another version, an archive reads as nothing (and never crashes).
    @Test func damagedArchiveIsNothing() throws {
        let (folder, entries) = try Self.decoded()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = APIDescriptionArchive.write(entries)
        #expect(APIDescriptionArchive.read(bytes) != nil)
        for length in stride(from: 0, to: bytes.count, by: 7) {
            #expect(APIDescriptionArchive.read(Array(bytes[..<length])) == nil, "cut at \(length)")
        }
        #expect(APIDescriptionArchive.read(Array(bytes.dropLast())) == nil)
        var otherVersion = bytes
        otherVersion[otherVersion.firstIndex(of: 0x0A)! - 1] ^= 1
        #expect(APIDescriptionArchive.read(otherVersion) == nil)
        // Bytes changed anywhere: read or refused, never a crash.
        var generator = SplitMix(seed: 14)
        for _ in 0..<300 {
            var damaged = bytes
            damaged[Int(generator.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: generator.next())
            _ = APIDescriptionArchive.read(damaged)
        }
    }

    /// `prefetch` decodes every file it is given, more files than it has threads, a file given
    /// twice once, and a second batch after the first is done (by the threads the first
    /// started); each file then loads as the same text decoded from a file of its own.
    @Test(.timeLimit(.minutes(2))) func prefetchDecodesEveryFileItIsGiven() throws {
        let (folder, entries) = try Self.decoded()
        defer { try? FileManager.default.removeItem(at: folder) }
        var batches: [[(file: String, original: APIDescriptionArchive.Entry)]] = [[], []]
        for copy in 0..<(ProcessInfo.processInfo.activeProcessorCount + 2) {
            for entry in entries {
                let file = folder.appendingPathComponent("copy\(copy)-" + URL(fileURLWithPath: entry.file).lastPathComponent).path
                try entry.text.write(toFile: file, atomically: true, encoding: .utf8)
                batches[copy % 2].append((file, entry))
            }
        }
        for batch in batches {
            let files = batch.map(\.file)
            APIDescriptionLoader.prefetch(files + files.prefix(2))
            // Not `load`, which would decode a file nothing had decoded: a file leaves the table
            // only when a prefetch thread has decoded it, and a lost thread would hang here.
            while APIDescriptionLoader.inFlight.withLock({ table in files.contains { table[$0] != nil } }) { usleep(2_000) }
        }
        for (file, original) in batches.joined() {
            switch (APIDescriptionLoader.load(file: file), original.result) {
            case (.failure(let a), .failure(let b)):
                #expect(a.message.replacingOccurrences(of: file, with: "") == b.message.replacingOccurrences(of: original.file, with: ""))
            case (.success(let a), .success(let b)):
                #expect(a.file == file)
                #expect(a.paths.map(\.template) == b.paths.map(\.template))
                #expect(a.components == b.components)
                #expect(a.lines.mapValues { [$0.line, $0.column] } == b.lines.mapValues { [$0.line, $0.column] })
                #expect(a.lines.values.allSatisfy { $0.file == file })
            default:
                Issue.record("\(file): one side decoded, the other did not")
            }
        }
    }

    /// Lint takes a restored description for a file whose text is the archived text, and
    /// decodes the file when its text differs.
    @Test func restoredDescriptionIsUsedForItsTextOnly() throws {
        let text = OpenAPILintTests.semanticsDescription(version: "3.1.0")
        let spec = OpenAPILintTests.minimalSpec.replacingOccurrences(of: "OPENAPI", with: "../openapi/api.yaml")
        for changed in [false, true] {
            let project = try OpenAPILintTests.Project(spec: "mini.md", text: spec, openAPI: ["api.yaml": text])
            defer { project.remove() }
            let file = project.root.appendingPathComponent("openapi/api.yaml").path
            // An archive whose result no decoding would give: seeing it proves it was used.
            let marker = APIDescriptionProblem("archived result for \(file)")
            APIDescriptionLoader.restore(APIDescriptionArchive.write([(file, changed ? text + "\n# edited\n" : text, .failure(marker))]))
            let messages = project.lint().diagnostics.map(\.message)
            if changed {
                #expect(!messages.contains(marker.message), "a stale archive was used: \(messages)")
                #expect(messages.contains { $0.contains("/ping") }, "the file was not decoded: \(messages)")
            } else {
                #expect(messages.contains(marker.message), "the archive was not used: \(messages)")
            }
        }
    }
}

/// The request line's path and segments, split on bytes for ASCII targets, are what splitting
/// the String by Characters gives, for targets with and without marks, queries and empty
/// segments.
@Suite struct RequestSegmentTests {
    @Test func byteSplitsAreCharacterSplits() {
        var generator = SplitMix(seed: 5)
        let alphabet = ["a", "v1", "/", "/", "?", "{{id}}", "{id}", "%20", "-", ".", "\r\n", "\r", "é", "\u{301}", "/\u{301}", "?\u{301}", "ş"]
        for _ in 0..<5000 {
            let target = (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
            #expect(APIDescription.pathPart(of: target) == path, "\(target.debugDescription)")
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            #expect(APIDescription.segments(of: path) == segments, "\(path.debugDescription)")
        }
    }
}

