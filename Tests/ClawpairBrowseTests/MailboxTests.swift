@testable import ClawpairBrowse
import ClawpairCore
import Synchronization
import Testing

@Suite("Mailbox", .timeLimit(.minutes(1)))
struct MailboxTests {
    @Test("first in, first out; a full mailbox makes the putter wait until a take")
    func boundedOrder() {
        let mailbox = Mailbox<Int>(capacity: 2)
        mailbox.put(1)
        mailbox.put(2)
        let putDone = Atomic<Bool>(false)
        let putter = BackgroundThread {
            mailbox.put(3)  // waits: the mailbox is full
            putDone.store(true, ordering: .releasing)
        }
        #expect(mailbox.take() == 1)  // makes room
        putter.join()
        let done = putDone.load(ordering: .acquiring)
        #expect(done)
        #expect(mailbox.take() == 2)
        #expect(mailbox.take() == 3)
    }

    @Test("close wakes a waiting putter and drops what it and later puts bring")
    func closeReleasesPutters() {
        let mailbox = Mailbox<Int>(capacity: 1)
        mailbox.put(1)
        let returned = Atomic<Int>(0)
        let putter = BackgroundThread {
            mailbox.put(2)  // waits until close
            returned.add(1, ordering: .releasing)
        }
        mailbox.close()
        putter.join()  // a put that kept waiting would hang here (the time limit catches it)
        mailbox.put(3)  // returns at once
        returned.add(1, ordering: .releasing)
        let count = returned.load(ordering: .acquiring)
        #expect(count == 2)
    }
}
