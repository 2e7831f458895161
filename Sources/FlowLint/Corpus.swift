import FlowModel
import FlowParser

/// What the rules over all the flows of a run (`CorpusRule`) see: one small entry per flow (its
/// id, file and where they are written, and what it translates), and the whole flow on demand
/// for the few they compare (a translation and its original). A batched lint keeps only the
/// entries and parses a compared pair's files again at the end, so that linting a large corpus
/// does not hold it (about 200 B a flow instead of 30 KB).
struct Corpus {
    struct Entry: Sendable {
        var id: String
        var file: String
        var location: SourceLocation
        var idLocation: SourceLocation
        var translationOf: String?
        var translationOfLocation: SourceLocation
        /// The flow's hash as linted, when it will be read again: it must read the same.
        var hash: Int?

        init(_ flow: Flow, hashed: Bool = false) {
            id = flow.id
            file = flow.file
            location = flow.location
            idLocation = flow.keyLocations["id"] ?? flow.location
            translationOf = flow.translationOf
            translationOfLocation = flow.keyLocations["translation-of"] ?? flow.location
            hash = hashed ? flow.hashValue : nil
        }
    }

    var entries: [Entry]
    /// The whole flow of `entries[index]`; nil when it no longer reads as it was linted (its
    /// file changed since), and then nothing is compared with it.
    let flow: (Int) -> Flow?

    /// Flows kept in memory.
    init(flows: [Flow]) {
        entries = flows.map { Entry($0) }
        flow = { flows[$0] }
    }

    /// Entries of flows read from their files by `parser`, which reads a flow again when a rule
    /// needs it whole.
    init(entries: [Entry], parser: SpecParser) {
        self.entries = entries
        flow = { index in
            let entry = entries[index]
            guard let flow = parser.parse(fileAt: entry.file).flow, entry.hash == nil || flow.hashValue == entry.hash else { return nil }
            return flow
        }
    }
}
