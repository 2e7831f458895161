import Dispatch
import FlowModel
import Foundation
import Testing

/// `DetachedThread` runs each body once, on a thread other than the caller's, many at a time,
/// and holds what the body captured until it has run.
@Suite struct DetachedThreadTests {
    @Test(.timeLimit(.minutes(1))) func everyBodyRunsOnceOnAnotherThread() {
        let count = 64
        let runs = Locked<[Int]>([])
        let callers = Locked<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        for index in 0..<count {
            // A class instance captured: released by the thread, not before it runs.
            let payload = NSNumber(value: index)
            DetachedThread.start {
                runs.withLock { $0.append(payload.intValue) }
                if pthread_equal(pthread_self(), caller) != 0 { callers.withLock { $0 += 1 } }
                done.signal()
            }
        }
        for _ in 0..<count { done.wait() }
        #expect(runs.value.sorted() == Array(0..<count))
        #expect(callers.value == 0)
        #expect(DetachedThread.processors >= 1)
    }
}
