#if canImport(Glibc)
import Glibc
#endif

/// This machine's host name (for default device and instance names).
public enum HostName {
    /// gethostname(2), or `fallback` when it cannot be read or is empty.
    public static func current(fallback: String) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return fallback }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? fallback : name
    }
}
