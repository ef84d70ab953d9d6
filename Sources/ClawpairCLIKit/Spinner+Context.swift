import ClawpairCore

extension Spinner {
    /// A spinner drawing `message` on the command's standard error when ``shouldShow(stderrIsTTY:environment:json:watch:quiet:verbose:)``
    /// says so for `context` (its terminal, environment, `--json`, `-q` and `-v`, and `watch`),
    /// with the locale's ``frames(environment:)``; nil otherwise.
    /// The first frame comes after `delay` (``gatewayDelay`` for a gateway call that is often quick).
    public static func start(_ message: String, in context: CommandContext, watch: Bool = false,
                             delay: Duration = .zero) -> Spinner? {
        guard shouldShow(stderrIsTTY: context.stderrIsTTY, environment: context.environment, json: context.globals.json,
                         watch: watch, quiet: context.globals.quiet, verbose: context.globals.verbosity > 0) else { return nil }
        return Spinner(sink: context.stderr, message: message, frames: frames(environment: context.environment), delay: delay)
    }
}
