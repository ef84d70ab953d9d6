import CTestShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension LabHost {
    /// Runs `body` in this process, on a fresh thread that has joined the host's network
    /// namespace (setns affects only the calling thread), and returns its result. Sockets the
    /// body opens belong to the lab host, so in-process library code can be tested against
    /// daemons in the lab without any traffic in the machine's own namespace. The thread ends
    /// with the body, so no pooled thread is ever left inside a lab namespace.
    public func inNamespace<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let path = "/run/netns/\(namespace)"
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    continuation.resume(throwing: HarnessError("open \(path): \(String(cString: strerror(errno)))"))
                    return
                }
                defer { close(fd) }
                guard CTestShims_setns(fd, CTestShims_CLONE_NEWNET()) == 0 else {
                    continuation.resume(throwing: HarnessError("setns \(path): \(String(cString: strerror(errno)))"))
                    return
                }
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }
}
