/// The mock backend's sessions: which session each handed-out token belongs to, and each
/// session's account, liveness and values.
///
/// Bounded (issue 10): beyond `capacity` sessions the oldest one is forgotten, as a real backend
/// forgets an expired session — its tokens stop working. Without the bound every request that
/// hands out a value (a sign-in, a capture answered without a bearer token) grew the backend for
/// ever, so `wrk` against a mock kept raising its memory. Ending an account's sessions is
/// indexed by account, not a scan of every session.
struct SessionStore {
    struct Session {
        var account: String
        var alive = true
        var values: [String: String] = [:]
    }

    static let defaultCapacity = 100_000

    let capacity: Int
    private var idByToken: [String: Int] = [:]
    private var sessions: [Int: Session] = [:]
    private var idsByAccount: [String: Set<Int>] = [:]
    private var nextID = 1
    private var oldestID = 1

    init(capacity: Int = SessionStore.defaultCapacity) {
        precondition(capacity > 0, "a session store holds at least one session")
        self.capacity = capacity
    }

    var count: Int { sessions.count }

    /// The session `token` belongs to, live or ended.
    func id(of token: String?) -> Int? { token.flatMap { idByToken[$0] } }

    func session(_ id: Int) -> Session? { sessions[id] }

    /// The live session `token` belongs to.
    func live(_ token: String?) -> Session? {
        guard let id = id(of: token), let session = sessions[id], session.alive else { return nil }
        return session
    }

    func isAlive(_ token: String?) -> Bool { live(token) != nil }

    /// Starts a session for `account` holding `tokens` (name → token).
    /// - Returns: the accounts left without any session because older sessions were forgotten.
    @discardableResult
    mutating func create(account: String, tokens: [String: String]) -> [String] {
        let id = nextID
        nextID += 1
        sessions[id] = Session(account: account, values: tokens)
        idsByAccount[account, default: []].insert(id)
        for token in tokens.values { idByToken[token] = id }
        var orphaned: [String] = []
        while sessions.count > capacity, oldestID < nextID {
            if let gone = forget(oldestID) { orphaned.append(gone) }
            oldestID += 1
        }
        return orphaned
    }

    /// Adds a handed-out value to an existing session.
    mutating func add(_ token: String, named name: String, to id: Int) {
        guard sessions[id] != nil else { return }
        idByToken[token] = id
        sessions[id]?.values[name] = token
    }

    /// Ends (keeps, but marks dead) every session of `account`.
    mutating func end(account: String) {
        for id in idsByAccount[account] ?? [] { sessions[id]?.alive = false }
    }

    /// - Returns: the session's account when it was the account's last session.
    private mutating func forget(_ id: Int) -> String? {
        guard let session = sessions.removeValue(forKey: id) else { return nil }
        for token in session.values.values where idByToken[token] == id { idByToken[token] = nil }
        idsByAccount[session.account]?.remove(id)
        guard idsByAccount[session.account]?.isEmpty ?? true else { return nil }
        idsByAccount[session.account] = nil
        return session.account
    }
}
