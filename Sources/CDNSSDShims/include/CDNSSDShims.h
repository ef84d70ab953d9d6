#pragma once
// Avahi's Bonjour-compat dns_sd API, for registration (`clawpair advertise`; browsing uses
// libavahi-client, CAvahiClientShims), loaded on first use with dlopen("libdns_sd.so.1") instead
// of being linked: linking it pulls in libavahi-client, libdbus, libsystemd and libgcrypt, which
// cost every clawpair command several milliseconds of start-up. Types and constants come from
// <dns_sd.h>; each call goes through a forwarder CDNSSDShims_<cfunc> with the function's own
// signature. Call CDNSSDShims_load first: the forwarders must not be used unless it returned 0.
// Loaded with dlopen, so this target does not depend on CDNSSD (that would link the library):
// a missing header names the Debian package here instead, as CDNSSD's apt provider does.
#if !__has_include(<avahi-compat-libdns_sd/dns_sd.h>)
#error "Avahi's dns_sd compatibility library headers are missing: install the Debian package libavahi-compat-libdnssd-dev (sudo apt-get install libavahi-compat-libdnssd-dev; scripts/install-deps installs every one)"
#endif
#include <avahi-compat-libdns_sd/dns_sd.h>
#include <stddef.h>
#include <stdint.h>

/// Loads libdns_sd and resolves every function below, once per process (thread-safe).
/// Returns 0 on success; otherwise -1, with the reason in CDNSSDShims_load_error().
int CDNSSDShims_load(void);

/// Why CDNSSDShims_load failed ("" when it did not).
const char *CDNSSDShims_load_error(void);

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
