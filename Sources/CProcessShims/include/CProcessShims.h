#pragma once
// Process-wide hardening Swift cannot call itself (prctl(2) is variadic).

/// No core dumps: RLIMIT_CORE soft and hard limits 0, and prctl(PR_SET_DUMPABLE, 0), so a crash
/// never writes the tokens, passwords and keys in memory to disk (and other processes of the
/// same user cannot ptrace us). Returns 0; or -1 with errno set when a call failed.
int CProcessShims_disableCoreDumps(void);
