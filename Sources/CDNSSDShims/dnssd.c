#include "CDNSSDShims.h"

#include <CLazyLibrary.h>
#include <pthread.h>
#include <stdlib.h>

// The dns_sd functions clawpair calls, resolved by CDNSSDShims_load (see CLazyLibrary.h).
#define DNSSD_FUNCTIONS(F) \
    F(DNSServiceRegister) F(DNSServiceRefSockFD) \
    F(DNSServiceProcessResult) F(DNSServiceRefDeallocate)

static struct {
    DNSSD_FUNCTIONS(CLAZY_FIELD)
} dnssd;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

static void load(void) {
    // Avahi's compat layer prints a banner unless this is set (main sets it too; this keeps
    // library users quiet as well).
    setenv("AVAHI_COMPAT_NOWARN", "1", 0);
    static const char *const libraries[] = {"libdns_sd.so.1"};
    static const char *const names[] = {DNSSD_FUNCTIONS(CLAZY_NAME)};
#define SLOT(name) CLAZY_SLOT(dnssd, name)
    void *const slots[] = {DNSSD_FUNCTIONS(SLOT)};
#undef SLOT
    load_status = CLazyLibrary_open(libraries, 1, names, slots, sizeof names / sizeof *names, load_error,
                                    sizeof load_error);
}

int CDNSSDShims_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *CDNSSDShims_load_error(void) { return load_error; }

DNSServiceErrorType CDNSSDShims_DNSServiceRegister(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                   const char *name, const char *regtype, const char *domain,
                                                   const char *host, uint16_t port, uint16_t txtLen, const void *txtRecord,
                                                   DNSServiceRegisterReply callback, void *context) {
    return dnssd.DNSServiceRegister(ref, flags, interfaceIndex, name, regtype, domain, host, port, txtLen, txtRecord,
                                    callback, context);
}

int CDNSSDShims_DNSServiceRefSockFD(DNSServiceRef ref) { return dnssd.DNSServiceRefSockFD(ref); }

DNSServiceErrorType CDNSSDShims_DNSServiceProcessResult(DNSServiceRef ref) { return dnssd.DNSServiceProcessResult(ref); }

void CDNSSDShims_DNSServiceRefDeallocate(DNSServiceRef ref) { dnssd.DNSServiceRefDeallocate(ref); }
