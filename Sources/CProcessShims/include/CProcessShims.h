#pragma once
// Process-wide hardening Swift cannot call itself (prctl(2) is variadic).

/// No core dumps: RLIMIT_CORE soft and hard limits 0, and prctl(PR_SET_DUMPABLE, 0), so a crash
/// never writes the tokens, passwords and keys in memory to disk (and other processes of the
/// same user cannot ptrace us). Returns 0; or -1 with errno set when a call failed.
int CProcessShims_disableCoreDumps(void);

struct termios;

/// Job control for a terminal in a raw-ish mode (ClawpairCLIKit's KeyInput): until
/// CProcessShims_releaseTerminalOnStop(), SIGTSTP (Ctrl-Z) first puts `fd` back in `saved` and then
/// stops the process as it would have stopped; SIGCONT (`fg`) sets `active` again. tcsetattr(3),
/// signal(2) and raise(3) are async-signal-safe. One terminal per process; returns 0, or -1 with
/// errno set when a handler could not be installed (then none is). When SIGTSTP is ignored
/// (no job control), nothing is installed and it returns 0.
int CProcessShims_restoreTerminalOnStop(int fd, const struct termios *saved, const struct termios *active);

/// Removes the handlers of CProcessShims_restoreTerminalOnStop(), putting back the dispositions
/// SIGTSTP and SIGCONT had before; does nothing when none are installed.
void CProcessShims_releaseTerminalOnStop(void);
