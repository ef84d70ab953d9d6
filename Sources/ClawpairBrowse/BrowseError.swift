import ClawpairAvahi
import ClawpairCore
import ClawpairMDNS
import ClawpairWideArea

/// Why a browse (``GatewayBrowser/scan(note:)``, ``GatewayBrowser/first(note:)``,
/// ``GatewayBrowser/watch(note:onTruncated:onEvent:)``) failed: the error of the backend that
/// ended it. Every payload type is re-exported by ClawpairBrowse, so `import ClawpairBrowse`
/// is enough to match on them.
public enum BrowseError: ClawpairError {
    /// avahi-daemon or its client library failed (``GatewayBrowser/LocalBackend/avahi``, or
    /// ``GatewayBrowser/LocalBackend/auto`` when the daemon answered and then failed).
    case avahi(AvahiError)
    /// The built-in mDNS querier failed (``GatewayBrowser/LocalBackend/native``), e.g. no
    /// interface can send multicast.
    case native(MDNSError)
    /// A wide-area DNS-SD browse failed.
    case wideArea(WideAreaError)
    /// A system call failed.
    case system(SystemError)
    /// The run was stopped from outside (``GatewayBrowser/stopping(on:)`` or task
    /// cancellation): the distinct "cancelled" outcome, code `cancelled`.
    case stopped(OperationStopped)
    /// Another library error (none of the backends throws one today).
    case other(any ClawpairError)

    /// Sorts `error` into its case; an error that is no ``ClawpairError`` becomes
    /// ``other(_:)`` with its description as the message.
    public init(_ error: any Error) {
        switch error {
        case let error as BrowseError: self = error
        case let error as AvahiError: self = .avahi(error)
        case let error as MDNSError: self = .native(error)
        case let error as WideAreaError: self = .wideArea(error)
        case let error as SystemError: self = .system(error)
        case let error as OperationStopped: self = .stopped(error)
        case let error as any ClawpairError: self = .other(error)
        default: self = .other(ContextualError("browsing", error))
        }
    }

    /// The backend's error.
    public var underlying: any ClawpairError {
        switch self {
        case .avahi(let error): return error
        case .native(let error): return error
        case .wideArea(let error): return error
        case .system(let error): return error
        case .stopped(let error): return error
        case .other(let error): return error
        }
    }

    /// The backend error's message.
    public var message: String { underlying.message }
    /// The backend error's hint.
    public var hint: String? { underlying.hint }
    /// The backend error's code (`avahi-unavailable`, `mdns-error`, …).
    public var code: String { underlying.code }
}
