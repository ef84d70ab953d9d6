import ClawpairCore
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
        let done = Atomic<Int>(0)
        for _ in 0..<8 {
            BackgroundThread.detached(stackSize: 64 * 1024) { done.add(1, ordering: .releasing) }
        }
        // Only a hang makes this give up (after about 20 s).
        for _ in 0..<2000 where done.load(ordering: .acquiring) < 8 {
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
        #expect(done.load(ordering: .acquiring) == 8)
    }
}
