import FlowModel
import Foundation

/// What the reports and summaries need of a result without reading it back: its place in the
/// report order, its verdict, root cause and time, and what the per-rule lines count.
public struct ResultHeader: Sendable, Hashable {
    public var id: String
    public var flowID: String
    public var kind: ItemResult.Kind
    public var verdict: Verdict
    public var cause: String?
    public var durationMS: Int
    public var scenarioIndex: Int?
    /// Behind one pointer: a run keeps a header per item until its report is written, and the
    /// token case's names are most of a header's size inline.
    @Boxed public var tokenCase: TokenCaseInfo?
}

extension ItemResult {
    public var header: ResultHeader {
        ResultHeader(
            id: id, flowID: flowID, kind: kind, verdict: verdict, cause: cause, durationMS: durationMS,
            scenarioIndex: scenario?.index, tokenCase: tokenCase)
    }
}

/// The results of a run, kept on disk as they complete so that a run's memory does not grow
/// with its items (about 7 KB of steps, messages and evidence each): every result is encoded
/// as the JSON report writes it and appended to a temporary file, unlinked as soon as it is
/// opened (nothing is left behind, whatever ends the process). Memory keeps each result's
/// header and where its bytes are. Where the file cannot be made or written (no writable
/// temporary folder, a full disk) the results stay in memory: slower to grow, never lost.
final class ResultLog: Sendable {
    /// Where a result's bytes are. A result kept in memory sits behind a pointer, so an entry
    /// stays a few hundred bytes either way.
    enum Stored: Sendable {
        case file(offset: Int, length: Int)
        indirect case memory(ItemResult)
    }

    /// Where a result is kept, and the provider calls a passed reject case holds for the
    /// baseline gate.
    struct Location: Sendable {
        var stored: Stored
        var held: Stored?
    }

    struct Entry: Sendable {
        var header: ResultHeader
        var location: Location
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        var end = 0
        var descriptor: Int32
    }

    private let state: Locked<State>

    /// `expected`: how many results will come (the entries are reserved at once, not grown to
    /// up to twice that).
    init(directory: String = NSTemporaryDirectory(), expected: Int = 0) {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        var template = Array((base + "flowspec-results-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if descriptor >= 0 {
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            // Not inherited by the processes a run starts (a background `rm -rf`, a backend).
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        var initial = State(descriptor: descriptor)
        initial.entries.reserveCapacity(expected)
        state = Locked(initial)
    }

    deinit {
        let descriptor = state.value.descriptor
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether results go to a file (false: kept in memory).
    var spills: Bool { state.value.descriptor >= 0 }

    /// The entries in arrival order, handed over: the log keeps none of them afterwards (what
    /// comes after goes to a fresh list).
    func takeEntries() -> [Entry] {
        state.withLock { state in
            defer { state.entries = [] }
            return state.entries
        }
    }

    func append(_ result: ItemResult) {
        let encoded = try? JSONReport.encoder.encode(result)
        let held = result.heldProviderRequests.map { try? JSONReport.encoder.encode($0) }
        state.withLock { state in
            var location = Location(stored: .memory(result))
            if let encoded, let at = Self.append(encoded, to: &state) { location.stored = at }
            if let held {
                location.held = held.flatMap { Self.append($0, to: &state) } ?? .memory(result)
            }
            state.entries.append(Entry(header: result.header, location: location))
        }
    }

    /// Writes `bytes` at the end of the file; nil when it cannot (the caller keeps the value).
    private static func append(_ bytes: Data, to state: inout State) -> Stored? {
        guard state.descriptor >= 0 else { return nil }
        let offset = state.end
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            var done = 0
            while done < buffer.count {
                let n = pwrite(state.descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        guard written else { return nil }
        state.end += bytes.count
        return .file(offset: offset, length: bytes.count)
    }

    /// The stored bytes (as `JSONReport.encoder` wrote them); nil for a value kept in memory.
    func bytes(_ stored: Stored) -> Data? {
        guard case .file(let offset, let length) = stored else { return nil }
        let descriptor = state.value.descriptor
        var data = Data(count: length)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var done = 0
            while done < length {
                let n = pread(descriptor, buffer.baseAddress! + done, length - done, off_t(offset + done))
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        return complete ? data : nil
    }

    /// The result at `location`; `header` is what is left to report should it not read back.
    func result(_ location: Location, header: ResultHeader) -> ItemResult {
        switch location.stored {
        case .memory(let result): return result
        case .file:
            // The file is this process's own, written above: it reads back unless the disk
            // fails under it, and then the header is what is left to report.
            if let data = bytes(location.stored), let result = try? JSONDecoder().decode(ItemResult.self, from: data) { return result }
            return ItemResult(
                id: header.id, flowID: header.flowID, kind: header.kind, title: header.id,
                verdict: header.verdict, message: "the result could not be read back from its temporary file",
                cause: header.cause, durationMS: header.durationMS)
        }
    }

    func held(_ location: Location) -> [ProviderRequestEvidence]? {
        switch location.held {
        case nil: return nil
        case .memory(let result)?: return result.heldProviderRequests
        case let stored?:
            return bytes(stored).flatMap { try? JSONDecoder().decode([ProviderRequestEvidence].self, from: $0) }
        }
    }
}

/// The results of a report in report order (`ResultOrder`), read one at a time: from memory,
/// or from a run's `ResultLog` with the baseline gate applied as each is read. Reports and
/// summaries walk `headers` and read back only the results they print in full.
public struct ReportResults: RandomAccessCollection, Sendable {
    /// One per result, in report order, with the gate's verdicts.
    public let headers: [ResultHeader]
    private let storage: Storage

    private enum Storage: Sendable {
        case memory([ItemResult])
        /// Where each result's bytes are in the log, in report order, and the failing baseline
        /// that gates each gated one (by report position).
        case log(ResultLog, [ResultLog.Location], gates: [Int: BaselineGate.Baseline])
    }

    /// `results` as given (sort them first for a report).
    public init(_ results: [ItemResult]) {
        storage = .memory(results)
        headers = results.map(\.header)
    }

    /// A run's results, in report order, the baseline gate applied. The log hands its entries
    /// over: one header per result stays in memory, not a second sorted copy of them.
    init(log: ResultLog) {
        var entries = log.takeEntries()
        entries.sort { ResultOrder.precedes($0.header, $1.header) }
        var baselines: [String: BaselineGate.Baseline] = [:]
        for entry in entries where BaselineGate.isFailingBaseline(entry.header) {
            let result = log.result(entry.location, header: entry.header)
            baselines[result.id] = BaselineGate.Baseline(id: result.id, message: result.message, cause: result.cause)
        }
        var gates: [Int: BaselineGate.Baseline] = [:]
        var headers: [ResultHeader] = []
        headers.reserveCapacity(entries.count)
        var locations: [ResultLog.Location] = []
        locations.reserveCapacity(entries.count)
        for position in entries.indices {
            var header = entries[position].header
            if !baselines.isEmpty, let baseline = BaselineGate.baseline(gating: header, in: baselines) {
                gates[position] = baseline
                header.verdict = .inconclusive
                header.cause = baseline.causeText
            }
            headers.append(header)
            locations.append(entries[position].location)
        }
        self.headers = headers
        storage = .log(log, locations, gates: gates)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { headers.count }

    public subscript(position: Int) -> ItemResult {
        switch storage {
        case .memory(let results):
            return results[position]
        case .log(let log, let locations, let gates):
            let location = locations[position]
            let result = log.result(location, header: headers[position])
            guard let baseline = gates[position] else { return result }
            return BaselineGate.gate(result, by: baseline, held: log.held(location))
        }
    }

    /// The result's JSON as `JSONReport.encoder` writes it, without decoding it, when the log
    /// holds those exact bytes (not for a gated result, which reads differently).
    func storedJSON(at position: Int) -> Data? {
        guard case .log(let log, let locations, let gates) = storage, gates[position] == nil else { return nil }
        return log.bytes(locations[position].stored)
    }
}

extension ReportResults: Hashable {
    public static func == (lhs: ReportResults, rhs: ReportResults) -> Bool {
        lhs.count == rhs.count && lhs.headers == rhs.headers && lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(headers) }
}

extension ReportResults: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try [ItemResult](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for result in self { try container.encode(result) }
    }
}
