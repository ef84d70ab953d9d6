#pragma once
// C calls the test support needs that Swift's Glibc module does not declare.

/// setns(2) for the calling thread only: moves it into the namespace behind `fd`
/// (e.g. CLONE_NEWNET for /run/netns/<name>). Returns 0 or -1 with errno set.
int CTestShims_setns(int fd, int nstype);

/// The CLONE_NEWNET flag for CTestShims_setns.
int CTestShims_CLONE_NEWNET(void);
