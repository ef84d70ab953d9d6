// Commands a node answers: a name and a handler. The built-in ones (NodeBuiltinCommands.swift)
// and a program's own are registered the same way, in one ``NodeCommandSet``.
//
// Checklist, adding a built-in command: write its handler in its own file (never through a
// shell), give it the shape upstream documents (`upstream-2026-10.md` §2.5), add it to
// ``NodeBuiltinCommands``, and test its payload in `Tests/ClawpairNodeTests`.

import ClawpairCore

/// One invoke handed to a command handler.
public struct NodeInvocation: Sendable {
    /// The command name.
    public var command: String
    /// The parsed parameters, or `nil` when the gateway sent none.
    public var params: JSONValue?
    /// The idempotency key the gateway gave, if any.
    public var idempotencyKey: String?
    /// When the invoke's budget runs out (the runtime aborts the handler then).
    public var deadline: Monotonic.Instant

    /// An invocation of `command`.
    public init(command: String, params: JSONValue?, idempotencyKey: String? = nil, deadline: Monotonic.Instant) {
        self.command = command
        self.params = params
        self.idempotencyKey = idempotencyKey
        self.deadline = deadline
    }

    /// The parameters as an object, or `INVALID_REQUEST` naming what is missing.
    public func requireObject() throws(NodeInvokeError) -> JSONValue {
        guard let params, case .object = params else { throw .invalidRequest("paramsJSON required") }
        return params
    }
}

/// A command a node offers: its name and the handler that answers it.
///
/// A handler returns the payload (sent as `payloadJSON`), `nil` for none, or throws a
/// ``NodeInvokeError`` to answer with that code. Any other error is answered `UNAVAILABLE` with
/// its message. A handler that sees `Task.isCancelled` should return early: the invoke was
/// cancelled or timed out and its result is no longer wanted.
public struct NodeCommand: Sendable {
    /// The handler's type.
    public typealias Handler = @Sendable (NodeInvocation) async throws -> JSONValue?

    /// The command name as declared in `connect` (`device.status`, `myapp.ping`, …).
    public var name: String
    /// Answers one invocation.
    public var handler: Handler

    /// A command named `name` answered by `handler`.
    public init(_ name: String, handler: @escaping Handler) {
        self.name = name
        self.handler = handler
    }
}

/// The commands a node declares and answers, in declaration order; a later command with the
/// name of an earlier one replaces it.
public struct NodeCommandSet: Sendable {
    private var commands: [NodeCommand] = []

    /// A set holding `commands`.
    public init(_ commands: [NodeCommand] = []) {
        for command in commands { add(command) }
    }

    /// Adds `command`, replacing one of the same name.
    public mutating func add(_ command: NodeCommand) {
        if let index = commands.firstIndex(where: { $0.name == command.name }) {
            commands[index] = command
        } else {
            commands.append(command)
        }
    }

    /// Removes the command named `name`, if present.
    public mutating func remove(_ name: String) {
        commands.removeAll { $0.name == name }
    }

    /// The command named `name`.
    public subscript(name: String) -> NodeCommand? {
        commands.first { $0.name == name }
    }

    /// The names, sorted (the order upstream's node host declares them in, §2.2).
    public var names: [String] { commands.map(\.name).sorted() }
}
