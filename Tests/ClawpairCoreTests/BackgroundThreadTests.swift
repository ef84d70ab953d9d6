import ClawpairCore
import ClawpairTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("BackgroundThread")
struct BackgroundThreadTests {
    @Test("the work runs on another thread; join waits for it and may be called again")
    func joinWaits() {
        let caller = pthread_self()
        let ranOn = Mutex<pthread_t?>(nil)
        let steps = Atomic<Int>(0)
        let thread = BackgroundThread {
            ranOn.withLock { $0 = pthread_self() }
            steps.add(1, ordering: .relaxed)
        }
        thread.join()
        #expect(steps.load(ordering: .relaxed) == 1)
        #expect(thread.isThread)
        #expect(ranOn.withLock { $0 }.map { pthread_equal($0, caller) == 0 } == true)
        thread.join()
        thread.detach()
        #expect(steps.load(ordering: .relaxed) == 1)
    }

    @Test("start: a thread that is joined, or nil (never the calling thread)")
    func start() throws {
        let caller = pthread_self()
        let ranOn = Mutex<pthread_t?>(nil)
        let thread = try #require(BackgroundThread.start { ranOn.withLock { $0 = pthread_self() } })
        thread.join()
        #expect(ranOn.withLock { $0 }.map { pthread_equal($0, caller) == 0 } == true)
    }

    @Test("a detached thread with a small stack runs its work to the end")
    func detached() {
        let done = Watched(0)
        for _ in 0..<8 {
            BackgroundThread.detached(stackSize: 64 * 1024) { done.update { $0 += 1 } }
        }
        // Woken by each thread's end; only a hang makes this give up.
        #expect(done.wait { $0 == 8 })
    }
}
