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
    /// Behind one pointer: a run keeps a header per item of its round until the round is sealed,
    /// and the token case's names are most of a header's size inline.
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
/// opened (nothing is left behind, whatever ends the process). Until its round is sealed,
/// memory keeps each result's header and where its bytes are; `seal()` puts the round in report
/// order, gates it, and writes those records to the file too, in blocks of which memory keeps
/// only the place, so that what a run holds does not grow with its rounds. Where the file
/// cannot be made or written (no writable temporary folder, a full disk) the results and
/// records stay in memory: slower to grow, never lost.
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

    /// Records sealed in report order, in blocks.
    private struct Sealed: Sendable {
        enum Block: Sendable {
            case file(offset: Int, length: Int)
            case memory([ReportRecord])
        }

        /// The first position of each block.
        var starts: [Int] = []
        var blocks: [Block] = []
        var count = 0
        /// The last sealed header, and whether each seal came after the one before it.
        var last: ResultHeader?
        var inOrder = true
    }

    private struct State: Sendable {
        /// Appended since the last seal, in arrival order.
        var pending: [ReportRecord] = []
        var end = 0
        var sealed = Sealed()
    }

    /// Records per block: a block is read back whole, and kept while reports walk it.
    static let blockRecords = 256

    private let descriptor: Int32
    private let state: Locked<State>
    /// The block read last: reports walk positions in order.
    private let cache = Locked<(start: Int, records: [ReportRecord])?>(nil)

    /// `expected`: how many results will come before the first seal (reserved at once, not
    /// grown to up to twice that).
    init(directory: String = NSTemporaryDirectory(), expected: Int = 0) {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        var template = Array((base + "flowspec-results-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if descriptor >= 0 {
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            // Not inherited by the processes a run starts (a background `rm -rf`, a backend).
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        var initial = State()
        initial.pending.reserveCapacity(expected)
        state = Locked(initial)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether results go to a file (false: kept in memory).
    var spills: Bool { descriptor >= 0 }

    /// Reserves room for `count` more results before the next seal.
    func expect(_ count: Int) {
        state.withLock { $0.pending.reserveCapacity($0.pending.count + count) }
    }

    func append(_ result: ItemResult) {
        let encoded = try? JSONReport.encoder.encode(result)
        let held = result.heldProviderRequests.map { try? JSONReport.encoder.encode($0) }
        state.withLock { state in
            var location = Location(stored: .memory(result))
            if let encoded, let at = append(encoded, to: &state) { location.stored = at }
            if let held {
                location.held = held.flatMap { append($0, to: &state) } ?? .memory(result)
            }
            state.pending.append(ReportRecord(header: result.header, location: location))
        }
    }

    /// Writes `bytes` at the end of the file; nil when it cannot (the caller keeps the value).
    private func append(_ bytes: some ContiguousBytes, to state: inout State) -> Stored? {
        guard descriptor >= 0 else { return nil }
        let offset = state.end
        let written = bytes.withUnsafeBytes { buffer -> Int? in
            var done = 0
            while done < buffer.count {
                let n = pwrite(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return nil }
                done += n
            }
            return done
        }
        guard let written else { return nil }
        state.end += written
        return .file(offset: offset, length: written)
    }

    /// Seals what was appended since the last seal: in report order, each passed reject case
    /// gated by its rule's failing baseline among them, written to the file in blocks. A run
    /// seals after each round: whole flows, by id, so that the seals follow each other in
    /// report order and every baseline is sealed with its cases. Should a seal not follow the
    /// one before (a caller breaking that), the report orders and gates all of them again.
    func seal() {
        let pending = state.withLock { state in
            var taken: [ReportRecord] = []
            swap(&taken, &state.pending)
            return taken
        }
        guard !pending.isEmpty else { return }
        let records = ReportRecord.ordered(pending, failure: baseline(of:))
        state.withLock { state in
            if let last = state.sealed.last, !ResultOrder.precedes(last, records[0].header) { state.sealed.inOrder = false }
            store(records, in: &state)
        }
    }

    /// Seals what is pending; if the seals did not follow each other in report order, orders
    /// and gates all records again as one.
    func sealForReport() {
        seal()
        guard !state.withLock({ $0.sealed.inOrder }) else { return }
        let all = (0..<count).map { position in
            var record = record(at: position)
            record.gate = nil
            return record
        }
        let records = ReportRecord.ordered(all, failure: baseline(of:))
        cache.withLock { $0 = nil }
        state.withLock { state in
            state.sealed = Sealed()
            store(records, in: &state)
        }
    }

    private func store(_ records: [ReportRecord], in state: inout State) {
        state.sealed.last = records.last?.header
        for start in stride(from: 0, to: records.count, by: Self.blockRecords) {
            let chunk = records[start..<min(start + Self.blockRecords, records.count)]
            var block = Sealed.Block.memory(Array(chunk))
            if let bytes = RecordCodec.encode(chunk), case .file(let offset, let length)? = append(bytes, to: &state) {
                block = .file(offset: offset, length: length)
            }
            state.sealed.starts.append(state.sealed.count)
            state.sealed.blocks.append(block)
            state.sealed.count += chunk.count
        }
    }

    private func baseline(of record: ReportRecord) -> BaselineGate.Baseline {
        let result = result(record.location, header: record.header)
        return BaselineGate.Baseline(id: result.id, message: result.message, cause: result.cause)
    }

    /// Blocks of sealed records kept in memory (the file could not take them).
    var blocksInMemory: Int {
        state.withLock { $0.sealed.blocks.count { if case .memory = $0 { true } else { false } } }
    }

    /// How many records are sealed.
    var count: Int { state.withLock { $0.sealed.count } }

    /// The sealed record at `position` (report order), read back with its block.
    func record(at position: Int) -> ReportRecord {
        if let hit = cache.withLock({ cached -> ReportRecord? in
            guard let cached, position >= cached.start, position - cached.start < cached.records.count else { return nil }
            return cached.records[position - cached.start]
        }) {
            return hit
        }
        let (start, count, block) = state.withLock { state in
            let sealed = state.sealed
            // The last block that starts at or before `position`.
            var low = 0
            var high = sealed.starts.count
            while high - low > 1 {
                let middle = (low + high) / 2
                if sealed.starts[middle] <= position { low = middle } else { high = middle }
            }
            let end = low + 1 < sealed.starts.count ? sealed.starts[low + 1] : sealed.count
            return (sealed.starts[low], end - sealed.starts[low], sealed.blocks[low])
        }
        let records: [ReportRecord]
        switch block {
        case .memory(let kept):
            records = kept
        case .file(let offset, let length):
            // The file is this process's own: it reads back unless the disk fails under it.
            records = bytes(.file(offset: offset, length: length)).flatMap { data in
                data.withUnsafeBytes { RecordCodec.decode($0) }
            }.flatMap { $0.count == count ? $0 : nil } ?? (start..<start + count).map(ReportRecord.unreadable(position:))
        }
        cache.withLock { $0 = (start, records) }
        return records[position - start]
    }

    /// The stored bytes (as `JSONReport.encoder` wrote them); nil for a value kept in memory.
    func bytes(_ stored: Stored) -> Data? {
        guard case .file(let offset, let length) = stored else { return nil }
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
/// or from a run's sealed `ResultLog`, the baseline gate applied as each is read. Reports and
/// summaries walk `headers` and read back only the results they print in full.
public struct ReportResults: RandomAccessCollection, Sendable {
    /// One per result, in report order, with the gate's verdicts.
    public let headers: ResultHeaders
    private let storage: Storage

    private enum Storage: Sendable {
        case memory([ItemResult])
        case log(ResultLog)
    }

    /// `results` as given (sort them first for a report).
    public init(_ results: [ItemResult]) {
        storage = .memory(results)
        headers = ResultHeaders(.memory(results.map(\.header)))
    }

    /// A run's results, in report order, the baseline gate applied: what is pending in the log
    /// is sealed, and the records are read back from it a block at a time.
    init(log: ResultLog) {
        log.sealForReport()
        storage = .log(log)
        headers = ResultHeaders(.log(log, count: log.count))
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { headers.count }

    public subscript(position: Int) -> ItemResult {
        switch storage {
        case .memory(let results):
            return results[position]
        case .log(let log):
            let record = log.record(at: position)
            let result = log.result(record.location, header: record.header)
            guard let gate = record.gate else { return result }
            return BaselineGate.gate(result, by: gate, held: log.held(record.location))
        }
    }

    /// The result's JSON as `JSONReport.encoder` writes it, without decoding it, when the log
    /// holds those exact bytes (not for a gated result, which reads differently).
    func storedJSON(at position: Int) -> Data? {
        guard case .log(let log) = storage else { return nil }
        let record = log.record(at: position)
        return record.gate == nil ? log.bytes(record.location.stored) : nil
    }
}

/// The headers of a report's results, in report order: kept in memory, or read back from a
/// run's `ResultLog` (so that a run's memory does not hold one per item).
public struct ResultHeaders: RandomAccessCollection, Sendable, Hashable {
    enum Source: Sendable {
        case memory([ResultHeader])
        case log(ResultLog, count: Int)
    }

    private let source: Source

    init(_ source: Source) { self.source = source }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch source {
        case .memory(let headers): headers.count
        case .log(_, let count): count
        }
    }

    public subscript(position: Int) -> ResultHeader {
        switch source {
        case .memory(let headers): headers[position]
        case .log(let log, _): log.record(at: position).gatedHeader
        }
    }

    public static func == (lhs: ResultHeaders, rhs: ResultHeaders) -> Bool { lhs.elementsEqual(rhs) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for header in self { hasher.combine(header) }
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
