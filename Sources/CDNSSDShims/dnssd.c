#include "CDNSSDShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// The dns_sd functions clawpair calls, resolved by CDNSSDShims_load. Each pointer has the type
// of the declaration in <dns_sd.h>, so a signature mismatch is a compile error.
static struct {
    __typeof__(DNSServiceBrowse) *browse;
    __typeof__(DNSServiceResolve) *resolve;
    __typeof__(DNSServiceQueryRecord) *query_record;
    __typeof__(DNSServiceRegister) *register_service;
    __typeof__(DNSServiceRefSockFD) *ref_sock_fd;
    __typeof__(DNSServiceProcessResult) *process_result;
    __typeof__(DNSServiceRefDeallocate) *ref_deallocate;
} dnssd;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

#define RESOLVE(field, name) \
    if ((dnssd.field = (__typeof__(name) *)dlsym(library, #name)) == NULL) { \
        snprintf(load_error, sizeof load_error, "libdns_sd.so.1 lacks %s", #name); \
        return; \
    }

static void load(void) {
    // Avahi's compat layer prints a banner unless this is set (main sets it too; this keeps
    // library users quiet as well). The library stays loaded for the life of the process.
    setenv("AVAHI_COMPAT_NOWARN", "1", 0);
    void *library = dlopen("libdns_sd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason != NULL ? reason : "dlopen(libdns_sd.so.1) failed");
        return;
    }
    RESOLVE(browse, DNSServiceBrowse)
    RESOLVE(resolve, DNSServiceResolve)
    RESOLVE(query_record, DNSServiceQueryRecord)
    RESOLVE(register_service, DNSServiceRegister)
    RESOLVE(ref_sock_fd, DNSServiceRefSockFD)
    RESOLVE(process_result, DNSServiceProcessResult)
    RESOLVE(ref_deallocate, DNSServiceRefDeallocate)
    load_status = 0;
}

int CDNSSDShims_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *CDNSSDShims_load_error(void) { return load_error; }

DNSServiceErrorType CDNSSDShims_DNSServiceBrowse(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                 const char *regtype, const char *domain,
                                                 DNSServiceBrowseReply callback, void *context) {
    return dnssd.browse(ref, flags, interfaceIndex, regtype, domain, callback, context);
}

DNSServiceErrorType CDNSSDShims_DNSServiceResolve(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                  const char *name, const char *regtype, const char *domain,
                                                  DNSServiceResolveReply callback, void *context) {
    return dnssd.resolve(ref, flags, interfaceIndex, name, regtype, domain, callback, context);
}

DNSServiceErrorType CDNSSDShims_DNSServiceQueryRecord(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                      const char *fullname, uint16_t rrtype, uint16_t rrclass,
                                                      DNSServiceQueryRecordReply callback, void *context) {
    return dnssd.query_record(ref, flags, interfaceIndex, fullname, rrtype, rrclass, callback, context);
}

DNSServiceErrorType CDNSSDShims_DNSServiceRegister(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                   const char *name, const char *regtype, const char *domain,
                                                   const char *host, uint16_t port, uint16_t txtLen, const void *txtRecord,
                                                   DNSServiceRegisterReply callback, void *context) {
    return dnssd.register_service(ref, flags, interfaceIndex, name, regtype, domain, host, port, txtLen, txtRecord,
                                  callback, context);
}

int CDNSSDShims_DNSServiceRefSockFD(DNSServiceRef ref) { return dnssd.ref_sock_fd(ref); }

DNSServiceErrorType CDNSSDShims_DNSServiceProcessResult(DNSServiceRef ref) { return dnssd.process_result(ref); }

void CDNSSDShims_DNSServiceRefDeallocate(DNSServiceRef ref) { dnssd.ref_deallocate(ref); }
