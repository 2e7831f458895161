#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Work on a thread of its own, outside Dispatch's pool and Swift concurrency's: for work that
/// must start now although every pool thread is busy (a full build's parse keeps them all), or
/// that blocks. A POSIX thread rather than Foundation's `Thread`: the first `Thread` of a
/// process, with `ProcessInfo` for the core count, cost a one-flow rebuild 1.4 M instructions of
/// the runtime's first use of their classes (callgrind).
public enum DetachedThread {
    /// Runs `body` on a new detached thread; on this one if no thread can be made.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            body()
            return
        }
        pthread_detach(thread)
    }

    /// The processors online (at least 1).
    public static var processors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
