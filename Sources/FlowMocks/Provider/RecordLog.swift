/// The mock provider's request records, newest `limit` kept, indexed by the secrets they carry
/// (elided `code`, `refresh_token` and `token` fields), so the checker finds one sign-in's calls
/// without scanning every record of the run (a scan per item made a run quadratic in its size).
struct RecordLog {
    /// Fields whose (elided) values index the records.
    static let indexedFields = ["code", "refresh_token", "token"]

    let limit: Int
    private var stored: [RecordedRequest] = []
    /// Sequence numbers of records forgotten (`forget(carrying:)`) and not yet compacted away.
    private var forgotten: Set<Int> = []
    /// Elided secret → sequence numbers of the records carrying it, oldest first.
    private var bySecret: [String: [Int]] = [:]
    private(set) var attackerFetches = 0

    init(limit: Int) { self.limit = limit }

    /// Records held, forgotten ones not yet dropped included (tests).
    var storedCount: Int { stored.count }

    /// The records kept, oldest first.
    var records: [RecordedRequest] {
        forgotten.isEmpty ? stored : stored.filter { !forgotten.contains($0.sequence) }
    }

    /// Appends `record`, whose sequence number is above every earlier one.
    mutating func append(_ record: RecordedRequest) {
        stored.append(record)
        for field in Self.indexedFields {
            if let value = record.fields[field] { bySecret[value, default: []].append(record.sequence) }
        }
        if record.endpoint == .attackerJWKS || record.endpoint == .attackerX5U { attackerFetches += 1 }
        // Trimmed in batches so appending stays O(1) amortised.
        if stored.count > limit + limit / 2 { trim(stored.count - limit) }
    }

    private mutating func trim(_ count: Int) {
        for record in stored.prefix(count) {
            forgotten.remove(record.sequence)
            for field in Self.indexedFields {
                guard let value = record.fields[field] else { continue }
                bySecret[value]?.removeAll { $0 <= record.sequence }
                if bySecret[value]?.isEmpty == true { bySecret[value] = nil }
            }
        }
        stored.removeFirst(count)
    }

    /// Forgets the records carrying any of `secrets` (elided), and the index entries of those
    /// secrets. Records are dropped in batches, once at least half of those kept are forgotten,
    /// so forgetting stays O(1) amortised.
    mutating func forget(carrying secrets: Set<String>) {
        for secret in secrets {
            guard let sequences = bySecret.removeValue(forKey: secret) else { continue }
            forgotten.formUnion(sequences)
        }
        if forgotten.count >= 64, forgotten.count * 2 >= stored.count {
            stored.removeAll { forgotten.contains($0.sequence) }
            forgotten.removeAll()
        }
    }

    mutating func removeAll() {
        stored.removeAll()
        forgotten.removeAll()
        bySecret.removeAll()
        attackerFetches = 0
    }

    /// The records whose `code`, `refresh_token` or `token` field is one of `secrets` (elided), in
    /// order of arrival.
    func records(carrying secrets: Set<String>) -> [RecordedRequest] {
        let sequences = Set(secrets.flatMap { bySecret[$0] ?? [] }).subtracting(forgotten)
        return sequences.sorted().compactMap(record(numbered:))
    }

    /// The record with this sequence number, found by bisection (numbers only grow).
    private func record(numbered sequence: Int) -> RecordedRequest? {
        var low = 0, high = stored.count
        while low < high {
            let middle = (low + high) / 2
            if stored[middle].sequence < sequence { low = middle + 1 } else { high = middle }
        }
        return low < stored.count && stored[low].sequence == sequence ? stored[low] : nil
    }
}
