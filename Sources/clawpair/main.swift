#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
internal import CProcessShims

// Process set-up happens here, once: Avahi's compat library prints a banner to stderr
// unless this is set, and a closed pipe must not kill us mid-write.
setenv("AVAHI_COMPAT_NOWARN", "1", 1)
signal(SIGPIPE, SIG_IGN)
// Tokens, passwords and keys live in this process's memory: a crash must not write them to a core file.
_ = CProcessShims_disableCoreDumps()

exit(CommandLineTool.run(root: RootCommand.spec, arguments: Array(CommandLine.arguments.dropFirst()),
                         version: ClawpairVersion.current, present: { ErrorPresentation.present($0) }))
