import ClawpairCLIKit

/// `clawpair probe` (being built; hidden until it runs).
enum ProbeCommand {
    static let spec = CommandSpec(
        name: "probe",
        abstract: "Find which of a gateway's routes is reachable from here",
        hidden: true
    )
}
