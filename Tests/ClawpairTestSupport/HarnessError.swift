/// A failure of the test harness itself: a command that failed or timed out, a daemon that did not
/// start, or a leak found at teardown. The message names the command or namespace and, where it
/// helps, the process output, so a failed test says what happened without re-running it.
public struct HarnessError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the command, namespace or file involved.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    /// Prefixes the message with what the harness was doing ("starting avahi-daemon in cpt-12-0-1: …").
    public func context(_ prefix: String) -> HarnessError {
        HarnessError("\(prefix): \(message)")
    }
}

/// Runs `body`, prefixing any error it throws with what the harness was doing.
func withContext<T>(
    _ prefix: @autoclosure () -> String,
    _ body: () async throws(HarnessError) -> T
) async throws(HarnessError) -> T {
    do {
        return try await body()
    } catch {
        throw error.context(prefix())
    }
}
