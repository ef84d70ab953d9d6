#pragma once
// Avahi's Bonjour-compat dns_sd API, loaded on first use with dlopen("libdns_sd.so.1") instead
// of being linked: linking it pulls in libavahi-client, libdbus, libsystemd and libgcrypt, which
// cost every clawpair command several milliseconds of start-up. Types and constants come from
// <dns_sd.h>; each call goes through a forwarder CDNSSDShims_<cfunc> with the function's own
// signature. Call CDNSSDShims_load first: the forwarders must not be used unless it returned 0.
#include <avahi-compat-libdns_sd/dns_sd.h>
#include <stddef.h>
#include <stdint.h>

/// Loads libdns_sd and resolves every function below, once per process (thread-safe).
/// Returns 0 on success; otherwise -1, with the reason in CDNSSDShims_load_error().
int CDNSSDShims_load(void);

/// Why CDNSSDShims_load failed ("" when it did not).
const char *CDNSSDShims_load_error(void);

/// DNSServiceBrowse.
DNSServiceErrorType CDNSSDShims_DNSServiceBrowse(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                 const char *regtype, const char *domain,
                                                 DNSServiceBrowseReply callback, void *context);

/// DNSServiceResolve.
DNSServiceErrorType CDNSSDShims_DNSServiceResolve(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                  const char *name, const char *regtype, const char *domain,
                                                  DNSServiceResolveReply callback, void *context);

/// DNSServiceQueryRecord.
DNSServiceErrorType CDNSSDShims_DNSServiceQueryRecord(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                      const char *fullname, uint16_t rrtype, uint16_t rrclass,
                                                      DNSServiceQueryRecordReply callback, void *context);

/// DNSServiceRegister.
DNSServiceErrorType CDNSSDShims_DNSServiceRegister(DNSServiceRef *ref, DNSServiceFlags flags, uint32_t interfaceIndex,
                                                   const char *name, const char *regtype, const char *domain,
                                                   const char *host, uint16_t port, uint16_t txtLen, const void *txtRecord,
                                                   DNSServiceRegisterReply callback, void *context);

/// DNSServiceRefSockFD.
int CDNSSDShims_DNSServiceRefSockFD(DNSServiceRef ref);

/// DNSServiceProcessResult.
DNSServiceErrorType CDNSSDShims_DNSServiceProcessResult(DNSServiceRef ref);

/// DNSServiceRefDeallocate.
void CDNSSDShims_DNSServiceRefDeallocate(DNSServiceRef ref);

// MARK: Browsing and service resolution through libavahi-client
//
// The compat layer's DNSServiceResolve drops the address Avahi's resolver finds, so addresses
// would need DNSServiceQueryRecord, which costs one more D-Bus client per call and, in
// avahi-daemon, the start delay every RecordBrowserNew gets (about 10 ms). These calls instead
// run Avahi's own service resolver (SRV, TXT and an address in one answer, as avahi-browse -r
// does) on one client with one Avahi thread, loaded with dlopen like the rest. Results are queued
// and announced on a pipe, so the caller polls one more descriptor beside the dns_sd ones.
// The browse can run on the same client too (CDNSSDShims_resolver_browse): one D-Bus connection
// instead of two, no compat thread hand-off per event, and libdns_sd need not be loaded at all;
// DNSServiceBrowse stays the fallback when libavahi-client cannot be loaded or connected.

/// An Avahi client with its event thread and result queue.
typedef struct CDNSSDShims_Resolver CDNSSDShims_Resolver;

/// What a queued event is.
typedef enum {
    /// A resolver answer (`tag`, `found` and the fields after it).
    CDNSSDShims_EventResolved = 0,
    /// CDNSSDShims_resolver_browse found an instance: `interface`, `name`, `type`, the domain in
    /// `host`, and in `tag` the resolution the browse started for it (0: none).
    CDNSSDShims_EventBrowseAdded = 1,
    /// An instance was withdrawn (the same fields).
    CDNSSDShims_EventBrowseRemoved = 2,
    /// The browse failed (or the daemon went away): `status` as the compat layer reports it.
    CDNSSDShims_EventBrowseFailed = 3,
} CDNSSDShims_EventKind;

/// One queued event: a resolver answer or a browse event, copied out of Avahi's callback.
typedef struct {
    CDNSSDShims_EventKind kind;
    /// The tag given to CDNSSDShims_resolver_start, or one the browse chose (CDNSSDShims_BrowseTagBase and up).
    uint64_t tag;
    /// 1: found (the fields below are set); 0: the resolver failed or timed out.
    int found;
    /// The SRV target with a trailing dot (a browse event: the domain), the port, and one address
    /// of the target as text.
    char host[1026];
    uint16_t port;
    char address[64];
    /// The TXT record as DNS wire format (length-prefixed strings); free with CDNSSDShims_resolution_free.
    uint8_t *txt;
    size_t txt_length;
    /// Browse events: the interface (if_nametoindex numbering), the instance name (unescaped) and
    /// the service type with a trailing dot, as DNSServiceBrowse reports them.
    uint32_t interface;
    char name[256];
    char type[256];
    /// A failed browse: the DNSServiceErrorType.
    int32_t status;
} CDNSSDShims_Resolution;

/// Loads libavahi-client, connects to avahi-daemon (on the bus of DBUS_SYSTEM_BUS_ADDRESS, as
/// the compat layer does) and starts the Avahi thread. Returns NULL when any of that fails.
CDNSSDShims_Resolver *CDNSSDShims_resolver_open(void);

/// Readable while answers are queued.
int CDNSSDShims_resolver_fd(CDNSSDShims_Resolver *resolver);

/// The first tag CDNSSDShims_resolver_browse gives its own resolutions; callers of
/// CDNSSDShims_resolver_start use tags below it.
static const uint64_t CDNSSDShims_BrowseTagBase = UINT64_C(1) << 63;

/// Browses `type` in `domain` (NULL: the default) on the same client, as DNSServiceBrowse does on
/// its own: instances come and go as queued browse events. At most one browse per resolver.
/// Each new instance is also resolved at once, on Avahi's thread, as CDNSSDShims_resolver_start
/// with AF_UNSPEC would (the added event carries the tag), up to `resolve_limit` instances at a
/// time; an instance browsed again for another protocol shares its running resolution.
/// CDNSSDShims_resolver_cancel stops them. Returns 0, or -1 when Avahi refused.
int CDNSSDShims_resolver_browse(CDNSSDShims_Resolver *resolver, const char *type, const char *domain,
                                unsigned resolve_limit);

/// Opens a resolver and starts CDNSSDShims_resolver_browse on it now, for the first
/// CDNSSDShims_resolver_take with the same arguments to adopt: a program that knows early (before
/// its own set-up) that it will browse starts the request inside avahi-daemon's hold on a new
/// browse (about 10 ms, even with the answer cached) instead of after its set-up. At most one
/// per process; one not taken stays open until the process exits. Returns 0, or -1 (nothing kept).
int CDNSSDShims_resolver_prestart(const char *type, const char *domain, unsigned resolve_limit);

/// The resolver CDNSSDShims_resolver_prestart started with the same `type`, `domain` (NULL
/// matches only NULL) and `resolve_limit`, once; NULL when there is none or it differs.
/// The caller owns it (CDNSSDShims_resolver_close).
CDNSSDShims_Resolver *CDNSSDShims_resolver_take(const char *type, const char *domain, unsigned resolve_limit);

/// Starts resolving `name` of `type` in `domain` on `interface` (0: any) for addresses of
/// `family`: AF_INET or AF_INET6; or AF_UNSPEC, whichever family answers first (as
/// `avahi-browse -r` resolves), then the other family as well. Returns 0, or -1 when Avahi refused.
int CDNSSDShims_resolver_start(CDNSSDShims_Resolver *resolver, uint64_t tag, uint32_t interface, const char *name,
                               const char *type, const char *domain, int family);

/// Stops every resolution started with `tag`.
void CDNSSDShims_resolver_cancel(CDNSSDShims_Resolver *resolver, uint64_t tag);

/// Takes the oldest queued event into `out`: 1, or 0 when none is queued.
int CDNSSDShims_resolver_next(CDNSSDShims_Resolver *resolver, CDNSSDShims_Resolution *out);

/// Frees what CDNSSDShims_resolver_next allocated in `resolution`.
void CDNSSDShims_resolution_free(CDNSSDShims_Resolution *resolution);

/// Stops the thread, frees every resolver and the client, and closes the pipe.
void CDNSSDShims_resolver_close(CDNSSDShims_Resolver *resolver);
