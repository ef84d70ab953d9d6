#include "CClawpairHeadStart.h"

#include <CDNSSDShims.h>
#include <string.h>

static int started;

int CClawpairHeadStart_applies(int argc, const char *const *argv) {
    if (argc < 2 || argv[1] == NULL || strcmp(argv[1], "discover") != 0) return 0;
    static const char *const excluded[] = {"native", "--backend=native", "--wide-area-only", "--watch", "--help", "-h"};
    for (int i = 2; i < argc && argv[i] != NULL; i++) {
        for (size_t j = 0; j < sizeof excluded / sizeof *excluded; j++) {
            if (strcmp(argv[i], excluded[j]) == 0) return 0;
        }
    }
    return 1;
}

int CClawpairHeadStart_started(void) { return started; }

// Priority 101, the first one allowed: before the default-priority initializers linked into the
// executable (the Swift runtime's, OpenSSL's). glibc passes argc and argv to constructors.
__attribute__((constructor(101))) static void head_start(int argc, char **argv) {
    if (CClawpairHeadStart_applies(argc, (const char *const *)argv)) {
        started = CDNSSDShims_resolver_prestart(CCLAWPAIR_HEAD_START_TYPE, NULL, CCLAWPAIR_HEAD_START_LIMIT) == 0;
    }
}
