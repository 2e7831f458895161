import FlowModel
import Foundation
import JOSE

/// Fresh RSA-2048 keys for the mock providers of this process, made ahead of need on background
/// threads (one per core). Generating a key is the single most expensive thing a check does
/// (tens to hundreds of milliseconds each, a random search for primes), and a provider needs
/// three at its first sign-in and one per key rotation: `flowspec check` asks for the keys its
/// plan will need as soon as it has planned (`prefetch`), so they are made on every core while
/// the servers start and the first items run, instead of one at a time inside the provider.
///
/// Every key is handed out once and only in this process: keys stay fresh per run and distinct
/// per provider and per rotation (docs/check.md, "Keys"). `take` never deadlocks: when no key is
/// ready and none is being made for it, it makes one on the calling thread.
// @unchecked: every stored var is read and written only with `condition` locked; an NSCondition,
// not a Mutex, because `take` must sleep until a worker thread delivers a key.
public final class RSAKeyPool: @unchecked Sendable {
    /// The pool of the process.
    public static let shared = RSAKeyPool()

    private let condition = NSCondition()
    private var ready: [RSAKey] = []
    /// Keys asked for that no worker has started yet.
    private var wanted = 0
    /// Keys being made by workers now.
    private var making = 0
    /// Takers waiting for a key that is wanted or being made.
    private var claims = 0
    private var workers = 0
    private var sharedAttacker: RSAKey?
    private let bits: Int
    private let maxWorkers: Int

    public init(bits: Int = 2048, workers: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.bits = bits
        self.maxWorkers = max(1, workers)
    }

    /// Starts making `count` more keys in the background (no-op for 0).
    public func prefetch(_ count: Int) {
        guard count > 0 else { return }
        condition.lock()
        wanted += count
        let start = min(maxWorkers, wanted + making) - workers
        workers += max(0, start)
        condition.unlock()
        for _ in 0..<max(0, start) { DetachedThread.start { [self] in work() } }
    }

    /// Keys ready now or on their way that no taker has claimed yet.
    public var available: Int {
        condition.lock()
        defer { condition.unlock() }
        return ready.count + making + wanted - claims
    }

    /// Returns once `count` keys are ready to take (or no more are on their way), waiting on a
    /// thread of its own: never on one of the cooperative pool's few threads.
    public func ready(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DetachedThread.start { [self] in
                condition.lock()
                while ready.count < count, making + wanted > 0 { condition.wait() }
                condition.unlock()
                continuation.resume()
            }
        }
    }

    /// `count` distinct keys; whatever is not already on its way is started on every core first.
    public func take(_ count: Int) -> [RSAKey] {
        prefetch(count - available)
        return (0..<count).map { _ in take() }
    }

    /// One key: a ready one, else one being made (waits for it), else one made on this thread.
    public func take() -> RSAKey {
        condition.lock()
        if ready.isEmpty, making + wanted > claims {
            claims += 1
            while ready.isEmpty, making + wanted > 0 { condition.wait() }
            claims -= 1
        }
        if !ready.isEmpty {
            let key = ready.removeFirst()
            condition.unlock()
            return key
        }
        condition.unlock()
        return make()
    }

    private func work() {
        while true {
            condition.lock()
            guard wanted > 0 else {
                workers -= 1
                condition.unlock()
                return
            }
            wanted -= 1
            making += 1
            condition.unlock()
            let key = make()
            condition.lock()
            making -= 1
            ready.append(key)
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The attacker's key of this process, taken from the pool on first use and the same
    /// afterwards: signatures no provider's JWKS vouches for.
    public func attacker() -> RSAKey {
        condition.lock()
        if let sharedAttacker {
            condition.unlock()
            return sharedAttacker
        }
        condition.unlock()
        let key = take(1)[0]
        condition.lock()
        defer { condition.unlock() }
        if let sharedAttacker { return sharedAttacker }  // another thread won the race
        sharedAttacker = key
        return key
    }

    /// Provider keys are 4-prime RSA-2048: the same public keys and RS256 signatures to any
    /// verifier; OpenSSL's RSAZ code works on 512-bit primes, so a key is found about 4× and a
    /// signature made about 3× faster than with 3 primes of 683 bits (docs/check.md, "Keys",
    /// with what a 512-bit factor costs in strength; `bench/check-bench.sh` times both).
    public static let primes = 4

    private func make() -> RSAKey {
        do { return try RSAKey.generate(bits: bits, primes: Self.primes) } catch { fatalError("OpenSSL could not generate an RSA key: \(error)") }
    }
}
