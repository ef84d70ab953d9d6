internal import CDNSSDShims
#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// A service registered with avahi-daemon through `DNSServiceRegister`. The daemon answers for
/// it while this object lives; ``withdraw()`` (or `deinit`) removes it, and avahi-daemon sends
/// the goodbye packets. Confined to one thread.
public final class AvahiRegistration {
    /// What the daemon reported about the registration.
    public enum State: Sendable, Equatable {
        /// Waiting for the daemon.
        case pending
        /// Registered under `name` (different from the requested name after a conflict).
        case registered(name: String)
        /// The daemon refused it.
        case failed(Int32)
    }

    /// The instance name asked for (avahi-daemon may register another after a conflict).
    public let requestedName: String
    /// Where the registration stands.
    public private(set) var state: State = .pending
    private var ref: DNSServiceRef?

    /// Asks avahi-daemon to advertise `name` of `type` (e.g. `_openclaw-gw._tcp`) on `port`
    /// with TXT `txt` (character-strings, each ≤ 255 bytes). The daemon renames on conflicts.
    public init(name: String, type: String, port: UInt16, txt: [[UInt8]]) throws(AvahiError) {
        requestedName = name
        try Self.loadLibrary()
        var rdata: [UInt8] = []
        for string in txt { rdata.append(UInt8(min(string.count, 255))); rdata += string.prefix(255) }
        if rdata.isEmpty { rdata = [0] }
        guard rdata.count <= Int(UInt16.max) else { throw .call("DNSServiceRegister", -65540) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var newRef: DNSServiceRef?
        let status = rdata.withUnsafeBytes { raw in
            CDNSSDShims_DNSServiceRegister(&newRef, 0, 0, name, type, nil, nil, port.bigEndian, UInt16(raw.count), raw.baseAddress,
                               registerReply, context)
        }
        guard status == kDNSServiceErr_NoError, let newRef else { throw Self.error("DNSServiceRegister", status) }
        ref = newRef
    }

    deinit { withdraw() }

    /// Withdraws the service. Safe to call more than once.
    public func withdraw() {
        if let ref { CDNSSDShims_DNSServiceRefDeallocate(ref) }
        ref = nil
    }

    /// The descriptor to poll for daemon replies (then call ``process()``); -1 once withdrawn.
    public var descriptor: Int32 { ref.map { CDNSSDShims_DNSServiceRefSockFD($0) } ?? -1 }

    /// Handles the daemon's pending replies; updates ``state``.
    public func process() throws(AvahiError) {
        guard let ref else { return }
        let status = CDNSSDShims_DNSServiceProcessResult(ref)
        guard status == kDNSServiceErr_NoError else { throw Self.error("DNSServiceProcessResult", status) }
    }

    /// Loads Avahi's compat library on first use (it is not linked; see CDNSSDShims).
    static func loadLibrary() throws(AvahiError) {
        guard CDNSSDShims_load() == 0 else { throw .libraryUnavailable(String(cString: CDNSSDShims_load_error())) }
    }

    static func error(_ call: String, _ status: DNSServiceErrorType) -> AvahiError {
        // Avahi's compat layer has no ServiceNotRunning code: a missing daemon or D-Bus is Unknown.
        if status == kDNSServiceErr_Unknown { return .daemonNotRunning }
        return .call(call, status)
    }

    fileprivate func replied(status: DNSServiceErrorType, name: String) {
        state = status == kDNSServiceErr_NoError ? .registered(name: name) : .failed(status)
    }
}

private let registerReply: DNSServiceRegisterReply = { _, _, status, name, _, _, context in
    guard let context else { return }
    let registration = Unmanaged<AvahiRegistration>.fromOpaque(context).takeUnretainedValue()
    let text = name.map { String(decoding: UnsafeBufferPointer(start: $0, count: strlen($0)).map { UInt8(bitPattern: $0) }, as: UTF8.self) } ?? ""
    registration.replied(status: status, name: text)
}
