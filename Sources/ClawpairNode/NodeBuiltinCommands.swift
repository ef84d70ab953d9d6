// The built-in commands of a Linux node (`upstream-2026-10.md` §2.5; upstream
// `src/node-host/invoke.ts`): `device.info`, `device.status`, `system.notify`, and `system.which`
// (declared only when asked for: gateways gate it behind an admin-approved surface). None runs a
// shell or any other program.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// The built-in commands and what they read.
public enum NodeBuiltinCommands {
    /// The commands declared by default.
    public static let defaultNames = ["device.info", "device.status", "system.notify"]
    /// Commands declared only on request.
    public static let optionalNames = ["system.which"]

    /// The most names `system.which` looks up in one invoke.
    public static let maxWhichNames = 64

    /// The built-in commands named in `names` (unknown names are skipped), reading facts through
    /// `facts`, notifying through `notifier`, resolving `system.which` on `searchPath`.
    public static func commands(_ names: [String], facts: NodeHostFacts, hostName: String,
                                notifier: DesktopNotifier = DesktopNotifier(),
                                searchPath: String = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") -> [NodeCommand] {
        names.compactMap { name in
            switch name {
            case "device.info": return NodeCommand(name) { _ in facts.deviceInfo(hostName: hostName) }
            case "device.status": return NodeCommand(name) { _ in facts.deviceStatus() }
            case "system.notify": return NodeCommand(name) { try notify($0, notifier: notifier) }
            case "system.which": return NodeCommand(name) { try which($0, searchPath: searchPath) }
            default: return nil
            }
        }
    }

    /// `system.notify {title, body, sound?, priority?, delivery?}`: empty title and body →
    /// `INVALID_REQUEST`; the payload says where it went: `{deliveredTo: "desktop"|"journal"}`.
    static func notify(_ invocation: NodeInvocation, notifier: DesktopNotifier) throws(NodeInvokeError) -> JSONValue? {
        let params = try invocation.requireObject()
        func text(_ name: String) throws(NodeInvokeError) -> String {
            guard let value = params[name], !value.isNull else { return "" }
            guard let string = value.stringValue else { throw .invalidRequest("\(name) must be a string") }
            return String(TerminalText.sanitize(string, allowNewlines: true).prefix(4096))
        }
        let title = try text("title"), body = try text("body")
        guard !(title.isEmpty && body.isEmpty) else { throw .invalidRequest("title or body required") }
        let urgency: UInt8
        switch params["priority"]?.stringValue {
        case "passive": urgency = 0
        case "timeSensitive": urgency = 2
        case nil, "active": urgency = 1
        default: throw .invalidRequest("priority must be passive, active or timeSensitive")
        }
        do {
            let delivery = try notifier.deliver(title: title, body: body, urgency: urgency)
            return .object([("deliveredTo", .string(delivery.rawValue))])
        } catch {
            throw .unavailable(error.message)
        }
    }

    /// `system.which {bins:[string]}` → `{bins:{name: absolutePath}}` (found ones only; names with
    /// a slash are never looked up, and the caller cannot change the search path).
    static func which(_ invocation: NodeInvocation, searchPath: String) throws(NodeInvokeError) -> JSONValue? {
        let params = try invocation.requireObject()
        guard let bins = params["bins"]?.arrayValue else { throw .invalidRequest("bins required") }
        guard bins.count <= maxWhichNames else { throw .invalidRequest("at most \(maxWhichNames) bins") }
        let directories = searchPath.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }.prefix(64)
        var found: [(String, JSONValue)] = []
        for entry in bins {
            guard let raw = entry.stringValue else { throw .invalidRequest("bins must be strings") }
            let name = raw.trimmingWhitespace()
            guard !name.isEmpty, name.utf8.count <= 255, !name.contains("/"), !name.contains("\0"),
                  !found.contains(where: { $0.0 == name }) else { continue }
            for directory in directories {
                let candidate = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                var info = stat()
                if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                    found.append((name, .string(candidate)))
                    break
                }
            }
        }
        return .object([("bins", .object(found))])
    }
}
