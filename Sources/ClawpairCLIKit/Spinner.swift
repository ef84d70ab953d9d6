import ClawpairCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress indicator (on standard error while a command waits): a frame every
/// ``interval`` from its own thread, and on ``stop()`` the line is erased (`CR`, `ESC [ K`) so
/// that what follows starts clean. Only on a terminal (see
/// ``shouldShow(stderrIsTTY:environment:json:watch:quiet:verbose:)``).
///
/// ```swift
/// let spinner = Spinner(sink: context.stderr, message: "Searching", frames: Spinner.frames(environment: env))
/// defer { spinner?.stop() }
/// ```
public final class Spinner: Sendable {
    /// The time between frames.
    public static let interval: Duration = .milliseconds(100)
    /// Erases the spinner's line: back to column 0, clear to the end of the line.
    public static let erase = "\r\u{1B}[K"

    /// Whether to show a spinner: standard error is a terminal (colour settings such as
    /// NO_COLOR do not matter: the spinner has no colour), `TERM` is not `dumb`, and the output is
    /// for a person reading along: not `--json` (machine output gets no decoration, even when
    /// standard error is a terminal), not `--watch` (a stream of lines), not `-q`, not `-v`
    /// (notes would break the line).
    public static func shouldShow(stderrIsTTY: Bool, environment: [String: String], json: Bool, watch: Bool,
                           quiet: Bool, verbose: Bool) -> Bool {
        stderrIsTTY && environment["TERM"] != "dumb" && !json && !watch && !quiet && !verbose
    }

    /// Braille dots when the locale is UTF-8 (LC_ALL, else LC_CTYPE, else LANG), else ASCII.
    public static func frames(environment: [String: String]) -> [String] {
        let locale = [environment["LC_ALL"], environment["LC_CTYPE"], environment["LANG"]]
            .lazy.compactMap { $0 }.first { !$0.isEmpty } ?? ""
        let utf8 = locale.lowercased().contains("utf-8") || locale.lowercased().contains("utf8")
        return utf8 ? ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] : ["|", "/", "-", "\\"]
    }

    private let sink: any TextSink
    private let message: String
    private let frames: [String]
    /// Written to by ``stop()`` to wake the thread at once.
    private let wake: (read: Int32, write: Int32)
    private let thread = Mutex<BackgroundThread?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let clock: any MonotonicClock

    private let delay: Duration

    /// The pause before the first frame of a spinner for a wait that is often short (a gateway
    /// call): nothing is drawn for a wait that ends sooner.
    public static let gatewayDelay: Duration = .milliseconds(300)

    /// Starts drawing `message` on `sink` after `delay` (nothing at all when ``stop()`` comes
    /// first), a frame each ``interval`` of `clock`; nil if no thread could be made or `frames`
    /// is empty.
    public init?(sink: any TextSink, message: String, frames: [String], delay: Duration = .zero,
                 clock: any MonotonicClock = SystemMonotonicClock()) {
        var ends: [Int32] = [-1, -1]
        guard !frames.isEmpty, pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        self.sink = sink
        self.message = message
        self.frames = frames
        self.clock = clock
        self.delay = delay
        self.wake = (ends[0], ends[1])
        guard let drawing = BackgroundThread.start({ [self] in draw() }) else {
            close(ends[0])
            close(ends[1])
            return nil
        }
        thread.withLock { $0 = drawing }
    }

    private func draw() {
        if delay > .zero {
            var descriptors = [PollDescriptor(wake.read, .readable)]
            _ = try? Poll.wait(&descriptors, until: clock.now + delay, clock: clock)
            if stopped.load(ordering: .acquiring) { return }  // stopped before the first frame: nothing drawn, nothing to erase
        }
        var index = 0
        while !stopped.load(ordering: .acquiring) {
            sink.write("\r" + frames[index % frames.count] + " " + message)
            index += 1
            var descriptors = [PollDescriptor(wake.read, .readable)]
            _ = try? Poll.wait(&descriptors, until: clock.now + Self.interval, clock: clock)
        }
        sink.write(Self.erase)
    }

    /// Stops drawing, erases the line and waits for the thread. Safe to call more than once.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        thread.withLock { $0 }?.join()
        close(wake.read)
        close(wake.write)
    }

    deinit { stop() }
}
