import Synchronization
import COpenSSL
import Foundation

/// Where nonces, codes, key ids and other unpredictable values come from.
/// Inject `SeededRandom` in tests for reproducible output. Key generation and
/// ECDSA nonces always use OpenSSL's own CSPRNG, never this.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}

/// OpenSSL's CSPRNG (RAND_bytes).
public struct SystemRandom: RandomSource {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        precondition(ok == 1, "RAND_bytes failed: \(OpenSSL.drainErrors())")
        return out
    }
}

/// Deterministic stream for tests: SHA-256(seed ‖ counter) blocks. Not for secrets.
public final class SeededRandom: RandomSource, Sendable {
    private let seed: [UInt8]
    private let state = Mutex<(counter: UInt64, buffer: [UInt8])>((0, []))

    public init(seed: [UInt8]) { self.seed = seed }
    public convenience init(seed: UInt64) {
        self.init(seed: (0..<8).map { UInt8(truncatingIfNeeded: seed >> (56 - 8 * $0)) })
    }

    public func bytes(_ count: Int) -> [UInt8] {
        state.withLock { state in
            while state.buffer.count < count {
                let block = (0..<8).map { UInt8(truncatingIfNeeded: state.counter >> (56 - 8 * UInt64($0))) }
                state.buffer += Digest.sha256(seed + block)
                state.counter += 1
            }
            let out = Array(state.buffer.prefix(count))
            state.buffer.removeFirst(count)
            return out
        }
    }
}

extension RandomSource {
    /// Random string over `alphabet` without modulo bias (rejection sampling).
    public func string(length: Int, alphabet: String = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") -> String {
        let symbols = Array(alphabet)
        precondition(!symbols.isEmpty && symbols.count <= 256)
        let limit = 256 - 256 % symbols.count
        var out = ""
        while out.count < length {
            for byte in bytes(length) where Int(byte) < limit && out.count < length {
                out.append(symbols[Int(byte) % symbols.count])
            }
        }
        return out
    }

    /// An Apple-style key id, e.g. `W6WcOKB` (7 alphanumerics).
    public func keyID(length: Int = 7) -> String { string(length: length) }
}
