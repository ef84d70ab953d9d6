#define _GNU_SOURCE
#include <sched.h>
#include "CTestShims.h"

int CTestShims_setns(int fd, int nstype) { return setns(fd, nstype); }

int CTestShims_CLONE_NEWNET(void) { return CLONE_NEWNET; }
