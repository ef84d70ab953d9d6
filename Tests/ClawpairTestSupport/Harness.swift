import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether this machine can run the namespace tests, and the skip policy for when it cannot.
///
/// The integration tests need root (network and mount namespaces), iproute2, dbus-daemon,
/// avahi-daemon, util-linux's `unshare`, procps' `sysctl` and Debian's `/usr/bin/python3` with
/// python3-zeroconf (`scripts/install-deps` installs them all). Policy:
///
/// - capable machine: the tests run;
/// - not capable and `CI` is not `true`: they are skipped, with a comment saying how to run them;
/// - `CI=true`: they always run, and a machine that is not capable fails them loudly
///   (``NetworkLab`` refuses to start and says what is missing).
///
/// Mark a test or suite with the ``Testing/Trait/networkLab`` trait.
public enum Harness {
    /// `CI=true` in the environment: namespace tests must run and never skip.
    public static let isCI: Bool = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Slack on a wall-clock bound that only catches a run which outlived its time limit (a hang),
    /// never a slow one: process start-up under `ip netns exec` on a loaded 2-core machine can take
    /// seconds. Speed is measured in `bench/`, not asserted here.
    public static let hangSlackMs = 10_000

    /// Debian's interpreter, which has python3-zeroconf (`python3` on PATH may be another one).
    public static let python3 = "/usr/bin/python3"

    /// `Tests/Fixtures` in the package (advertiser scripts, configs).
    public static let fixturesDirectory: URL = SpecFiles.packageRoot.appendingPathComponent("Tests/Fixtures")

    /// What this machine lacks for the namespace tests; empty when they can run.
    public static let missingRequirements: [String] = {
        var missing: [String] = []
        if geteuid() != 0 {
            missing.append("root (network namespaces need CAP_SYS_ADMIN)")
        }
        for tool in ["ip", "dbus-daemon", "avahi-daemon", "unshare", "sysctl", "mount"]
        where Subprocess.resolveExecutable(tool) == nil {
            missing.append(tool)
        }
        if access(python3, X_OK) != 0 {
            missing.append(python3)
        } else if !FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/zeroconf") {
            missing.append("python3-zeroconf")
        }
        return missing
    }()

    /// True when ``missingRequirements`` is empty.
    public static var canRun: Bool { missingRequirements.isEmpty }

    /// The comment shown when namespace tests are skipped.
    public static var skipMessage: String {
        "needs root and the test daemons (missing: \(missingRequirements.joined(separator: ", "))): "
            + "run `sudo make test`, after `sudo scripts/install-deps`; with CI=true these tests never skip"
    }

    /// Throws unless the machine can run namespace tests. Called by ``withNetworkLab(_:)``, so a
    /// test that `CI=true` forced to run on an incapable machine fails with the reason.
    public static func requireCapable() throws(HarnessError) {
        guard canRun else {
            throw HarnessError("cannot run namespace tests\(isCI ? " (CI=true, so they may not skip)" : ""): missing \(missingRequirements.joined(separator: ", ")); install them with `sudo scripts/install-deps` and run the tests as root (`sudo make test`)")
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where ``Harness/canRun`` is true or `CI=true`; otherwise skips it with
    /// ``Harness/skipMessage``. Under CI an incapable machine fails the test instead of skipping.
    public static var networkLab: Self {
        .enabled(if: Harness.canRun || Harness.isCI, Comment(rawValue: Harness.skipMessage))
    }
}
