/// The mock provider's request records, newest `limit` kept, indexed by the secrets they carry
/// (elided `code`, `refresh_token` and `token` fields), so the checker finds one sign-in's calls
/// without scanning every record of the run (a scan per item made a run quadratic in its size).
struct RecordLog {
    /// Fields whose (elided) values index the records.
    static let indexedFields = ["code", "refresh_token", "token"]

    let limit: Int
    private(set) var records: [RecordedRequest] = []
    /// Elided secret → sequence numbers of the records carrying it, oldest first.
    private var bySecret: [String: [Int]] = [:]
    private(set) var attackerFetches = 0

    init(limit: Int) { self.limit = limit }

    /// Appends `record`, whose sequence number is above every earlier one.
    mutating func append(_ record: RecordedRequest) {
        records.append(record)
        for field in Self.indexedFields {
            if let value = record.fields[field] { bySecret[value, default: []].append(record.sequence) }
        }
        if record.endpoint == .attackerJWKS || record.endpoint == .attackerX5U { attackerFetches += 1 }
        // Trimmed in batches so appending stays O(1) amortised.
        if records.count > limit + limit / 2 { trim(records.count - limit) }
    }

    private mutating func trim(_ count: Int) {
        for record in records.prefix(count) {
            for field in Self.indexedFields {
                guard let value = record.fields[field] else { continue }
                bySecret[value]?.removeAll { $0 <= record.sequence }
                if bySecret[value]?.isEmpty == true { bySecret[value] = nil }
            }
        }
        records.removeFirst(count)
    }

    mutating func removeAll() {
        records.removeAll()
        bySecret.removeAll()
        attackerFetches = 0
    }

    /// The records whose `code`, `refresh_token` or `token` field is one of `secrets` (elided), in
    /// order of arrival.
    func records(carrying secrets: Set<String>) -> [RecordedRequest] {
        let sequences = Set(secrets.flatMap { bySecret[$0] ?? [] })
        return sequences.sorted().compactMap(record(numbered:))
    }

    /// The record with this sequence number, found by bisection (numbers only grow).
    private func record(numbered sequence: Int) -> RecordedRequest? {
        var low = 0, high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].sequence < sequence { low = middle + 1 } else { high = middle }
        }
        return low < records.count && records[low].sequence == sequence ? records[low] : nil
    }
}
