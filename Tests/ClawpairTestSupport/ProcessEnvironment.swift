#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Process-wide environment changes for tests that call C libraries reading `getenv` (libdbus,
/// Avahi's compat library), made one test at a time.
///
/// `setenv` is global to the test process, so every function here holds a process-wide async lock
/// for the whole body: two suites that each use their own private bus never overlap, even when
/// Swift Testing runs them in parallel. ``with(_:_:)`` restores previous values (or unsets the
/// variables) afterwards, also when the body throws; ``withSystemBus(socketPath:_:)`` explains
/// why it does not. Children spawned by the harness never inherit these variables by accident:
/// they start from ``Subprocess``'s own environment.
public enum ProcessEnvironment {
    private static let lock = AsyncLock()

    /// A stable path that ``withSystemBus(socketPath:_:)`` points at the current lab's bus socket.
    ///
    /// libdbus reads `DBUS_SYSTEM_BUS_ADDRESS` once per process and caches it (until
    /// `dbus_shutdown`), and avahi-client connects with `dbus_bus_get_private(DBUS_BUS_SYSTEM)`.
    /// A second lab's bus at another path would be ignored, so the variable always names this
    /// symlink, which is re-pointed for each body and removed afterwards.
    public static let systemBusLink = "/tmp/\(NetworkLab.namePrefix)-\(getpid())-system-bus.sock"

    /// Sets `variables`, runs `body`, restores the previous environment.
    public static func with<T>(_ variables: [String: String], _ body: () async throws -> T) async throws -> T {
        await lock.acquire()
        let restore = apply(variables)
        do {
            let result = try await body()
            restore()
            await lock.release()
            return result
        } catch {
            restore()
            await lock.release()
            throw error
        }
    }

    /// Points ``systemBusLink`` at `socketPath`, makes sure `DBUS_SYSTEM_BUS_ADDRESS` names the
    /// link and `AVAHI_COMPAT_NOWARN=1`, runs `body`, then removes the link.
    ///
    /// Unlike ``with(_:_:)`` this does not restore the two variables: their values never change
    /// within a process, libdbus has cached the address anyway, and setting them only once keeps
    /// `setenv` (which may reallocate `environ` under concurrent `getenv` callers in parallel
    /// tests) to a single call per variable. Outside a body the link does not exist, so anything
    /// in the test process that reaches for the system bus fails with ENOENT instead of talking
    /// to the machine's own bus.
    public static func withSystemBus<T>(socketPath: String, _ body: () async throws -> T) async throws -> T {
        await lock.acquire()
        unlink(systemBusLink)
        guard symlink(socketPath, systemBusLink) == 0 else {
            let message = String(cString: strerror(errno))
            await lock.release()
            throw HarnessError("symlink \(systemBusLink) -> \(socketPath): \(message)")
        }
        for (key, value) in ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(systemBusLink)", "AVAHI_COMPAT_NOWARN": "1"]
        where getenv(key).map({ String(cString: $0) }) != value {
            setenv(key, value, 1)
        }
        do {
            let result = try await body()
            unlink(systemBusLink)
            await lock.release()
            return result
        } catch {
            unlink(systemBusLink)
            await lock.release()
            throw error
        }
    }

    /// Sets `variables` and returns a closure that puts the previous values back.
    private static func apply(_ variables: [String: String]) -> () -> Void {
        let saved = variables.keys.map { key in (key, getenv(key).map { String(cString: $0) }) }
        for (key, value) in variables {
            setenv(key, value, 1)
        }
        return {
            for (key, value) in saved {
                if let value {
                    setenv(key, value, 1)
                } else {
                    unsetenv(key)
                }
            }
        }
    }
}

/// A FIFO async mutex: `acquire` suspends (never blocks a thread) until `release`.
actor AsyncLock {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
