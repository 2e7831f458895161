import Foundation
import OpenAPIKit
import OpenAPIKit30
import Testing
import TestSupport
import Yams
@testable import FlowOpenAPI

/// `NodeDecoder` must decode exactly as Yams' `YAMLDecoder` does (it only finds keys faster):
/// the same documents, the same keys and lookups, the same errors. Yams is the reference in
/// every case, on the same composed tree.
@Suite struct NodeDecoderTests {
    /// Composed as `APIDescriptionLoader` composes a description.
    static func compose(_ text: String) throws -> Node {
        try #require(try Yams.compose(yaml: text, .basic, .default, .utf8))
    }

    /// The repository's descriptions, one made large from them, and a 3.0 one: decoded alone
    /// (no fallback to Yams), they equal Yams' documents.
    @Test func descriptionsDecodeAsYamsDecodesThem() throws {
        let backend = try String(contentsOf: packageRoot.appendingPathComponent("openapi/tvl-backend.yaml"), encoding: .utf8)
        let finflow = try String(contentsOf: packageRoot.appendingPathComponent("openapi/finflow-backend.yaml"), encoding: .utf8)
        // Every path again under 19 other prefixes: a description of about 90 KB.
        let paths = try #require(backend.range(of: "\npaths:\n"))
        let components = try #require(backend.range(of: "\ncomponents:\n"))
        let block = String(backend[paths.upperBound..<components.lowerBound])
        var large = String(backend[..<paths.upperBound])
        for copy in 0..<20 {
            let renamed = ("\n" + block).replacingOccurrences(of: "\n  /", with: "\n  /copy\(copy)/")
                .replacingOccurrences(of: "operationId: ", with: "operationId: copy\(copy)")
            large += (copy == 0 ? block : String(renamed.dropFirst())) + "\n"
        }
        large += String(backend[components.lowerBound...].dropFirst())
        for text in [backend, large] {
            let node = try Self.compose(text)
            let fast = try NodeDecoder.decodeWithoutYams(OpenAPIKit.OpenAPI.Document.self, from: node)
            let reference = try YAMLDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: node)
            #expect(fast == reference)
        }
        #expect(large.utf8.count > 80_000)
        let v30 = OpenAPILintTests.semanticsDescription(version: "3.0.3")
        for text in [finflow, v30] {
            let node = try Self.compose(text)
            #expect(try NodeDecoder.decodeWithoutYams(OpenAPIKit30.OpenAPI.Document.self, from: node)
                == YAMLDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: node))
        }
    }

    /// What a `Decodable` can see of a mapping: its keys, whether it holds a key, and the values.
    struct Probe: Decodable, Equatable {
        var keys: [String]
        var holds: [String: Bool]
        var values: [String: String]
        var nested: [Probe]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        static let asked = ["a", "b", "200", "yamlTag", "yamlAnchor", "nothing", "list"]

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            keys = container.allKeys.map(\.stringValue)
            holds = [:]
            values = [:]
            nested = []
            for name in Self.asked + keys.filter({ !Self.asked.contains($0) }) {
                let key = Key(stringValue: name)
                holds[name] = container.contains(key)
                if let text = try? container.decode(String.self, forKey: key) { values[name] = text }
                if let inner = try? container.decode(Probe.self, forKey: key) { nested.append(inner) }
                if let list = try? container.decode([Probe].self, forKey: key) { nested += list }
            }
        }
    }

    /// Keys are found as Yams finds them: an explicit tag's `yamlTag` and an anchor's
    /// `yamlAnchor` keys added unless the mapping writes them itself, numbers as text.
    @Test func keysAreFoundAsYamsFindsThem() throws {
        let text = """
            b: !!str 1
            a: last
            200: two hundred
            anchored: &shared { a: inside, b: 2 }
            again: *shared
            tagged: !!map { a: x }
            own: !!map { yamlTag: mine, a: y }
            list: [ { a: one }, &item { a: two }, !!map { b: three } ]
            """
        let node = try Self.compose(text)
        let fast = try NodeDecoder.decodeWithoutYams(Probe.self, from: node)
        let reference = try YAMLDecoder().decode(Probe.self, from: node)
        #expect(fast == reference)
        #expect(fast.values["a"] == "last")
        #expect(fast.values["200"] == "two hundred")
        // Each mapping of the list, and the nested ones, were seen the same way too.
        #expect(fast.nested.count == reference.nested.count)
        #expect(!fast.nested.isEmpty)
    }

    /// A merge key is Yams' to resolve: a tree holding one is never decoded here, not even in
    /// part (a `Decodable` that catches an error must not see one Yams would not throw), and
    /// `decode` answers as Yams does.
    @Test func mergeKeysAreLeftToYams() throws {
        let node = try Self.compose("""
            base: &base { a: from-base }
            merged: { !!merge <<: *base, b: own }
            """)
        #expect(NodeDecoder.needsYams(node))
        #expect(!NodeDecoder.needsYams(try Self.compose("base: &base { a: from-base }\nmerged: { <<: *base, b: own }\n")))
        #expect(throws: NodeDecoder.Unsupported.self) { try NodeDecoder.decodeWithoutYams(Probe.self, from: node) }
        #expect(try NodeDecoder.decode(Probe.self, from: node) == YAMLDecoder().decode(Probe.self, from: node))
    }

    /// Where a description is wrong, this decoder's own error reads as Yams' (OpenAPIKit may
    /// look at an error and go on), and `decode` returns Yams' error itself.
    @Test(arguments: [
        "openapi: 3.1.0\npaths: {}\n",
        "openapi: 3.1.0\ninfo: { title: t, version: '1' }\npaths: { /a: { get: { responses: { '200': [1, 2] } } } }\n",
        "openapi: 3.1.0\ninfo: [x]\npaths: {}\n",
        "openapi: 3.1.0\ninfo: { title: t, version: '1' }\npaths: { /a: { get: { parameters: [ { name: id, in: nowhere } ], responses: {} } } }\n",
    ])
    func errorsReadAsYamsErrors(text: String) throws {
        let node = try Self.compose(text)
        var reference: (any Error)?
        do { _ = try YAMLDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: node) } catch { reference = error }
        let expected = try #require(reference, "Yams decodes it; the case proves nothing")
        var fast: (any Error)?
        do { _ = try NodeDecoder.decodeWithoutYams(OpenAPIKit.OpenAPI.Document.self, from: node) } catch { fast = error }
        #expect(fast.map { String(describing: $0) } == String(describing: expected))
        #expect(fast.map { OpenAPIKit.OpenAPI.Error(from: $0).localizedDescription } == OpenAPIKit.OpenAPI.Error(from: expected).localizedDescription)
        var wrapped: (any Error)?
        do { _ = try NodeDecoder.decode(OpenAPIKit.OpenAPI.Document.self, from: node) } catch { wrapped = error }
        #expect(wrapped.map { String(describing: $0) } == String(describing: expected))
    }

    /// A member or element of each of Yams' `ScalarConstructible` types, written as a mapping
    /// or a sequence: this decoder answers as Yams does (which refuses them all), by value or by
    /// error. `decodeElement` skips Yams' "is it a scalar type?" question on mappings and
    /// sequences; the Foundation types whose `Decodable` reads an array or keyed fields (Data,
    /// Decimal, URL) would otherwise be made from them here, as the cases below are written to.
    @Test func scalarTypesFromMappingsAndSequencesFailAsInYams() throws {
        let containers = [
            "{ a: 1 }",
            "[1, 2]",
            "{ relative: 'https://example.com/a' }",
            "{ exponent: 0, length: 1, isNegative: false, isCompact: true, mantissa: [1, 0, 0, 0, 0, 0, 0, 0] }",
            "[]",
        ]
        var compared = 0
        func check<T: Decodable & Equatable>(_ type: T.Type) throws {
            for container in containers {
                for text in ["value: \(container)\n", "values: [\(container)]\n"] {
                    let node = try Self.compose(text)
                    let reference = Result { try YAMLDecoder().decode(Holder<T>.self, from: node) }
                    let fast = Result { try NodeDecoder.decodeWithoutYams(Holder<T>.self, from: node) }
                    #expect(Self.outcome(fast) == Self.outcome(reference), "\(T.self) from \(text)")
                    compared += 1
                }
            }
        }
        try check(String.self); try check(Bool.self); try check(Double.self); try check(Float.self)
        try check(Int.self); try check(Int8.self); try check(Int16.self); try check(Int32.self); try check(Int64.self)
        try check(UInt.self); try check(UInt8.self); try check(UInt16.self); try check(UInt32.self); try check(UInt64.self)
        try check(UUID.self); try check(Date.self); try check(Data.self); try check(Decimal.self); try check(URL.self)
        #expect(compared == 19 * containers.count * 2)
        // Yams refuses a non-scalar for each of them. (With Data, Decimal and URL taken off
        // `decodeElement`'s list, this test fails: Foundation's `Decodable` makes a Data of a
        // sequence and a URL and a Decimal of their keyed fields.)
        #expect((try? YAMLDecoder().decode(Holder<Data>.self, from: Self.compose("value: [1, 2]\n"))) == nil)
    }

    struct Holder<T: Decodable & Equatable>: Decodable, Equatable {
        var value: T?
        var values: [T]?
    }

    static func outcome<T>(_ result: Result<T, any Error>) -> String {
        switch result {
        case .success(let value): return "value \(value)"
        case .failure(let error): return "error \(error)"
        }
    }
}
