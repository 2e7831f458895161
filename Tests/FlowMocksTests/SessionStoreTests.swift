import Testing
@testable import FlowMocks

/// The mock backend's sessions stay bounded: beyond its capacity the oldest session is
/// forgotten (its tokens stop resolving), and an account left without sessions is reported so
/// the backend can drop a made-up anonymous account (issue 10: memory flat under load).
@Suite struct SessionStoreTests {
    @Test func theOldestSessionsAreForgottenBeyondCapacity() {
        var store = SessionStore(capacity: 3)
        var orphaned: [String] = []
        for index in 1...5 {
            orphaned += store.create(account: "a\(index)", tokens: ["session": "t\(index)"])
        }
        #expect(store.count == 3)
        #expect(orphaned == ["a1", "a2"])
        #expect(store.id(of: "t1") == nil)
        #expect(store.id(of: "t2") == nil)
        for index in 3...5 { #expect(store.isAlive("t\(index)")) }
    }

    @Test func anAccountWithAnotherSessionIsNotOrphaned() {
        var store = SessionStore(capacity: 2)
        #expect(store.create(account: "alice", tokens: ["s": "old"]).isEmpty)
        #expect(store.create(account: "alice", tokens: ["s": "new"]).isEmpty)
        // The third session pushes out alice's first; alice still has her second.
        #expect(store.create(account: "bob", tokens: ["s": "b"]).isEmpty)
        #expect(store.live("old") == nil)
        #expect(store.live("new")?.account == "alice")
    }

    @Test func endingAnAccountKillsAllItsSessionsAndOnlyThose() {
        var store = SessionStore()
        store.create(account: "alice", tokens: ["s": "a1"])
        store.create(account: "bob", tokens: ["s": "b1"])
        store.create(account: "alice", tokens: ["s": "a2"])
        let id = try! #require(store.id(of: "a2"))
        store.add("a2-refresh", named: "refresh", to: id)
        store.end(account: "alice")
        #expect(!store.isAlive("a1"))
        #expect(!store.isAlive("a2"))
        #expect(!store.isAlive("a2-refresh"))
        #expect(store.id(of: "a2-refresh") == id, "an ended session is still known (refusals say why)")
        #expect(store.isAlive("b1"))
    }

    @Test func forgettingASessionForgetsTheValuesAddedToIt() {
        var store = SessionStore(capacity: 1)
        store.create(account: "alice", tokens: ["s": "a"])
        let id = try! #require(store.id(of: "a"))
        store.add("extra", named: "x", to: id)
        store.create(account: "bob", tokens: ["s": "b"])
        #expect(store.id(of: "extra") == nil)
        #expect(store.id(of: "a") == nil)
    }
}
