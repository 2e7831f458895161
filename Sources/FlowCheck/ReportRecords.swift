import FlowModel
import Foundation

/// One position of a report as a run's `ResultLog` keeps it once its round is sealed: the
/// result's header as the result has it, where its bytes are, and the failing baseline that
/// gates it (the header a report shows is `gatedHeader`).
struct ReportRecord: Sendable {
    var header: ResultHeader
    var location: ResultLog.Location
    var gate: BaselineGate.Baseline?

    /// The header as reports count it: a gated case is inconclusive, for its baseline's cause.
    var gatedHeader: ResultHeader {
        guard let gate else { return header }
        var gated = header
        gated.verdict = .inconclusive
        gated.cause = gate.causeText
        return gated
    }

    /// What stands for a record whose block could not be read back from the log's file (a disk
    /// failing under a run): an error, so that the run does not pass on results it lost.
    static func unreadable(position: Int) -> ReportRecord {
        ReportRecord(
            header: ResultHeader(
                id: "result-\(position + 1)", flowID: "", kind: .scenario, verdict: .error,
                cause: "the result could not be read back from its temporary file", durationMS: 0, scenarioIndex: nil, tokenCase: nil),
            location: .init(stored: .file(offset: 0, length: 0)))
    }

    /// Orders `records` as a report does and gates each passed reject case whose rule's baseline
    /// (`flow/rule/P1`) failed among them. `failure` reads a failing baseline's message and cause.
    static func ordered(
        _ records: consuming [ReportRecord], failure: (ReportRecord) -> BaselineGate.Baseline
    ) -> [ReportRecord] {
        var records = records
        records.sort { ResultOrder.precedes($0.header, $1.header) }
        var baselines: [String: BaselineGate.Baseline] = [:]
        for record in records where BaselineGate.isFailingBaseline(record.header) {
            baselines[record.header.id] = failure(record)
        }
        guard !baselines.isEmpty else { return records }
        for position in records.indices {
            records[position].gate = BaselineGate.baseline(gating: records[position].header, in: baselines)
        }
        return records
    }
}

/// Blocks of `ReportRecord`s in a compact binary form (fixed-width little-endian integers,
/// length-prefixed UTF-8), for the log's own file: a 10× run's headers read back in a few
/// milliseconds, where JSON would take a second per pass over them.
enum RecordCodec {
    /// Nil when a record cannot go to the file: its result is held in memory (the file could
    /// not take it), so the block stays in memory too.
    static func encode(_ records: some Collection<ReportRecord>) -> [UInt8]? {
        var writer = ByteWriter()
        writer.int(records.count)
        for record in records {
            guard case .file(let offset, let length) = record.location.stored else { return nil }
            writer.int(offset)
            writer.int(length)
            switch record.location.held {
            case nil: writer.flag(false)
            case .file(let offset, let length)?:
                writer.flag(true)
                writer.int(offset)
                writer.int(length)
            case .memory?: return nil
            }
            writer.header(record.header)
            writer.optional(record.gate) { writer, gate in
                writer.text(gate.id)
                writer.optional(gate.message) { $0.text($1) }
                writer.optional(gate.cause) { $0.text($1) }
            }
        }
        return writer.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> [ReportRecord]? {
        var reader = ByteReader(bytes: bytes)
        do throws(ByteReader.Malformed) {
            let count = try reader.int()
            guard count >= 0, count <= bytes.count else { return nil }
            var records: [ReportRecord] = []
            records.reserveCapacity(count)
            for _ in 0..<count {
                var location = ResultLog.Location(stored: .file(offset: try reader.int(), length: try reader.int()))
                if try reader.flag() { location.held = .file(offset: try reader.int(), length: try reader.int()) }
                let header = try reader.header()
                var gate: BaselineGate.Baseline?
                if try reader.flag() {
                    gate = BaselineGate.Baseline(id: try reader.text(), message: try reader.optionalText(), cause: try reader.optionalText())
                }
                records.append(ReportRecord(header: header, location: location, gate: gate))
            }
            return reader.atEnd ? records : nil
        } catch {
            return nil
        }
    }
}

private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func int(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func text(_ value: String) {
        int(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func optional<Value>(_ value: Value?, _ write: (inout ByteWriter, Value) -> Void) {
        flag(value != nil)
        if let value { write(&self, value) }
    }

    mutating func header(_ header: ResultHeader) {
        text(header.id)
        text(header.flowID)
        text(header.kind.rawValue)
        text(header.verdict.rawValue)
        optional(header.cause) { $0.text($1) }
        int(header.durationMS)
        optional(header.scenarioIndex) { $0.int($1) }
        optional(header.tokenCase) { writer, info in
            writer.text(info.rule)
            writer.int(info.rulePosition)
            writer.text(info.caseID)
            writer.optional(info.variant) { $0.int($1) }
            writer.optional(info.variantDescription) { $0.text($1) }
            writer.text(info.expectation)
            writer.optional(info.step) { $0.int($1) }
            writer.optional(info.conformanceID) { $0.text($1) }
        }
    }
}

private struct ByteReader {
    struct Malformed: Error {}

    let bytes: UnsafeRawBufferPointer
    var at = 0

    var atEnd: Bool { at == bytes.count }

    mutating func int() throws(Malformed) -> Int {
        guard bytes.count - at >= 8 else { throw Malformed() }
        let value = bytes.loadUnaligned(fromByteOffset: at, as: Int64.self)
        at += 8
        return Int(Int64(littleEndian: value))
    }

    mutating func flag() throws(Malformed) -> Bool {
        guard at < bytes.count, bytes[at] <= 1 else { throw Malformed() }
        at += 1
        return bytes[at - 1] == 1
    }

    mutating func text() throws(Malformed) -> String {
        let count = try int()
        guard count >= 0, bytes.count - at >= count else { throw Malformed() }
        defer { at += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + count]), as: UTF8.self)
    }

    mutating func optionalText() throws(Malformed) -> String? { try flag() ? try text() : nil }

    mutating func optionalInt() throws(Malformed) -> Int? { try flag() ? try int() : nil }

    mutating func raw<Value: RawRepresentable<String>>(_: Value.Type) throws(Malformed) -> Value {
        guard let value = Value(rawValue: try text()) else { throw Malformed() }
        return value
    }

    mutating func header() throws(Malformed) -> ResultHeader {
        let id = try text()
        let flowID = try text()
        let kind = try raw(ItemResult.Kind.self)
        let verdict = try raw(Verdict.self)
        let cause = try optionalText()
        let duration = try int()
        let scenario = try optionalInt()
        var info: TokenCaseInfo?
        if try flag() {
            info = TokenCaseInfo(
                rule: try text(), rulePosition: try int(), caseID: try text(), variant: try optionalInt(),
                variantDescription: try optionalText(), expectation: try text(), step: try optionalInt(),
                conformanceID: try optionalText())
        }
        return ResultHeader(
            id: id, flowID: flowID, kind: kind, verdict: verdict, cause: cause, durationMS: duration,
            scenarioIndex: scenario, tokenCase: info)
    }
}
