// Naming a node the way upstream's `openclaw nodes remove/rename --node <id|name|ip>` does: the
// one node.list entry the query matches (``NodeList/nodes(matching:)``), else the query itself as
// the id, since node.pair.* records need not be in node.list; the gateway's `unknown nodeId`
// answer then means that no node has that name.
import ClawpairCore

/// Why ``OperatorSession/withNode(matching:_:)`` found no single node.
public enum NodeLookupError: ClawpairError, Equatable {
    /// `query` matches several nodes of node.list (id prefix, name or address).
    case ambiguous(query: String, matches: [NodeListNode])
    /// No node matched `query` and the gateway knows no node with that id.
    case unknownNode(String)

    /// What failed, in one sentence (sanitized): `Q matches 2 nodes: id (name); id (name)` (at
    /// most eight named), or `no node matches Q`.
    public var message: String {
        switch self {
        case .ambiguous(let query, let matches):
            let names = matches.prefix(8).map { node in
                "\(TerminalText.sanitize(node.nodeId, maxScalars: 80)) (\(FieldText.field(node.displayName, max: 32)))"
            }
            return "\(TerminalText.sanitize(query, maxScalars: 80)) matches \(matches.count) nodes: " + names.joined(separator: "; ")
        case .unknownNode(let query):
            return "no node matches \(TerminalText.sanitize(query, maxScalars: 80))"
        }
    }
}

extension GatewayError {
    /// The gateway failed a call because it knows no node with the id given (`unknown nodeId`).
    public var isUnknownNode: Bool {
        guard case .rpcFailed(_, let shape) = self else { return false }
        return shape.message.lowercased().contains("unknown nodeid")
    }
}

extension OperatorSession {
    /// Runs `body` with the id of the node `query` names (its id, a unique id prefix, its name or
    /// its address in node.list, else `query` itself) and returns that id with `body`'s result.
    /// Throws ``NodeLookupError/ambiguous(query:matches:)`` without calling `body` when several
    /// nodes match, ``NodeLookupError/unknownNode(_:)`` when `body` fails with
    /// ``GatewayError/isUnknownNode``, and any other error as it is.
    public func withNode<T>(matching query: String, _ body: (String) throws -> T) throws -> (nodeId: String, result: T) {
        let matches = try listNodes().nodes(matching: query)
        guard matches.count <= 1 else { throw NodeLookupError.ambiguous(query: query, matches: matches) }
        let nodeId = matches.first?.nodeId ?? query
        do {
            return (nodeId, try body(nodeId))
        } catch let error as GatewayError where error.isUnknownNode {
            throw NodeLookupError.unknownNode(query)
        }
    }
}
