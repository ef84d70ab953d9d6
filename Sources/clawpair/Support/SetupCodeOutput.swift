import ClawpairCLIKit
import ClawpairCore
import ClawpairSetupCode

/// The `--json` shape of a decoded setup code (documented in clawpair-setup-code-decode(1)).
enum SetupCodeJSON {
    static func decoded(_ setup: DecodedSetup, nowMs: Int64, showSecrets: Bool,
                        failure: (any ClawpairError)?) -> JSONValue {
        setup.json(nowMs: nowMs, showSecrets: showSecrets, error: failure.map { JSONEnvelope.errorObject(presented($0)) })
    }

    /// `error` as the command line presents it, under the decoder's own code (``ClawpairError/code``:
    /// `not-a-payload`, `join-url-…`; `strict-refused` for the strict decoder's refusal, which decode
    /// words itself), with `hint` when given.
    static func presented(_ error: any ClawpairError, hint: String? = nil) -> PresentedError {
        let shown = ErrorPresentation.present(error)
        let code = error is any CommandLineError ? "strict-refused" : shown.code
        return PresentedError(error, status: shown.exitStatus, message: shown.message, hint: hint ?? shown.hint, code: code)
    }
}
