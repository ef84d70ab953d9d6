#include "CProcessShims.h"

#include <sys/prctl.h>
#include <sys/resource.h>

int CProcessShims_disableCoreDumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
    return 0;
}
