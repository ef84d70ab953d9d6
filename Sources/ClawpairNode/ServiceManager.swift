// Speaking systemd's language (`sd_notify(3)`, `sd_watchdog_enabled(3)`, `sd_journal_send(3)`)
// through libsystemd, loaded on first use (CSystemdShims). Outside a service (no NOTIFY_SOCKET)
// every call is a no-op, so a node run in a terminal behaves the same.

internal import CSystemdShims

/// Readiness, status and watchdog pings to the service manager that started this process.
public struct ServiceManagerNotifier: Sendable {
    /// A notifier for this process.
    public init() {}

    /// Whether libsystemd could be loaded (the calls below do nothing when it could not).
    public var isAvailable: Bool { CSystemdShims_load() == 0 }

    /// Sends `state` (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`); `false` when there is no
    /// service manager listening or libsystemd is missing.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard CSystemdShims_load() == 0 else { return false }
        return state.withCString { CSystemdShims_sd_notify($0) } > 0
    }

    /// `READY=1` with a status line.
    @discardableResult
    public func ready(status: String) -> Bool { notify("READY=1\nSTATUS=\(Self.oneLine(status))") }

    /// `STATUS=…`.
    @discardableResult
    public func status(_ text: String) -> Bool { notify("STATUS=\(Self.oneLine(text))") }

    /// `WATCHDOG=1`.
    @discardableResult
    public func watchdog() -> Bool { notify("WATCHDOG=1") }

    /// `STOPPING=1`.
    @discardableResult
    public func stopping() -> Bool { notify("STOPPING=1") }

    /// How often the service manager expects `WATCHDOG=1` (half its `WatchdogSec=`, as
    /// sd_watchdog_enabled(3) recommends), or `nil` when it expects none.
    public var watchdogInterval: Duration? {
        guard CSystemdShims_load() == 0 else { return nil }
        var usec: UInt64 = 0
        guard CSystemdShims_sd_watchdog_enabled(&usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(clamping: usec / 2))
    }

    static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : Character($0) }.prefix(512))
    }
}

/// Where ``DesktopNotifier`` delivered a notification.
public enum NotificationDelivery: String, Sendable, Equatable {
    /// The desktop's notification service (org.freedesktop.Notifications on the session bus).
    case desktop
    /// The systemd journal (no desktop session reachable).
    case journal
}

/// Why a notification could be delivered nowhere.
public struct NotificationError: Error, Sendable, Equatable {
    /// What failed (the desktop's and the journal's reasons).
    public var message: String
}

/// Shows a notification on the user's desktop when a notification service answers on the
/// session bus, else writes it to the journal.
public struct DesktopNotifier: Sendable {
    /// The application name the notification carries.
    public var applicationName: String
    /// How long the desktop may take to answer before the journal is used.
    public var timeout: Duration

    /// A notifier named `applicationName`.
    public init(applicationName: String = "clawpair", timeout: Duration = .seconds(2)) {
        self.applicationName = applicationName
        self.timeout = timeout
    }

    /// Delivers `title`/`body` (urgency 0 low, 1 normal, 2 critical): desktop first, else the journal.
    public func deliver(title: String, body: String, urgency: UInt8) throws(NotificationError) -> NotificationDelivery {
        guard CSystemdShims_load() == 0 else {
            throw NotificationError(message: "libsystemd is not available: \(String(cString: CSystemdShims_load_error()))")
        }
        var id: UInt32 = 0
        var reason = [CChar](repeating: 0, count: 256)
        let usec = UInt64(clamping: max(timeout.components.seconds, 0)) &* 1_000_000
            &+ UInt64(clamping: timeout.components.attoseconds / 1_000_000_000_000)
        let sent = CSystemdShims_desktop_notify(applicationName, title, body, min(urgency, 2), -1, max(usec, 1000), &id,
                                                &reason, reason.count)
        if sent == 0 { return .desktop }
        let desktopReason = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let text = body.isEmpty ? title : (title.isEmpty ? body : "\(title): \(body)")
        let priority: Int32 = urgency >= 2 ? 2 : (urgency == 0 ? 6 : 5)  // crit, info, notice
        let logged = CSystemdShims_journal_send(text, priority, applicationName)
        if logged == 0 { return .journal }
        throw NotificationError(message: "no desktop (\(desktopReason)) and the journal refused it (errno \(-logged))")
    }
}
