import ClawpairCLIKit

/// The command files' name for ClawpairCLIKit's record rendering.
typealias GatewayOutput = RecordText
