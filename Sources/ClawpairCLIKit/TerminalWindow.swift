#if canImport(Glibc)
import Glibc
#endif

/// The size of the terminal window a file descriptor is attached to.
public enum TerminalWindow {
    /// The window's width in columns when `fd` is a terminal that reports one (`TIOCGWINSZ`),
    /// else nil (a pipe, a file, or a terminal of unknown size).
    public static func columns(fd: Int32 = 1) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The width of standard output's terminal when text `width` columns wide would not fit
    /// on it (its lines would wrap); nil when it fits, or standard output is not a terminal.
    public static func narrower(than width: Int, stdoutIsTTY: Bool) -> Int? {
        guard stdoutIsTTY, let columns = columns(), columns < width else { return nil }
        return columns
    }
}
