#pragma once
// Avahi's client library (libavahi-client, with libavahi-common for the main loop, errors,
// addresses and string lists), loaded on first use with dlopen("libavahi-client.so.3") instead of
// being linked: linking it pulls libdbus, libsystemd, libgcrypt, liblzma, libzstd, liblz4, libcap
// and libgpg-error into every clawpair command, about 0.7 ms of dynamic loading per start-up here
// (a program that only links libavahi-client: 1.25 ms median against 0.57 ms, 1,000 runs).
// Types and constants come from Avahi's own headers; each call goes through a forwarder
// CAvahiClientShims_<cfunc> with the function's own signature (a mismatch is a compile error,
// see CLazyLibrary.h). Call CAvahiClientShims_load first: the forwarders must not be used
// unless it returned 0.
// Loaded with dlopen, so this target does not depend on CAvahiClient (that would link the library):
// a missing header names the Debian package here instead, as CAvahiClient's apt provider does.
#if !__has_include(<avahi-client/client.h>)
#error "libavahi-client headers are missing: install the Debian package libavahi-client-dev (sudo apt-get install libavahi-client-dev; scripts/install-deps installs every one)"
#endif
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/malloc.h>
#include <avahi-common/error.h>
#include <avahi-common/simple-watch.h>
#include <avahi-common/strlst.h>
#include <stddef.h>
#include <stdint.h>

/// Loads libavahi-client and libavahi-common and resolves every function below, once per
/// process (thread-safe). Returns 0 on success; otherwise -1, with the reason in
/// CAvahiClientShims_load_error().
int CAvahiClientShims_load(void);

/// Why CAvahiClientShims_load failed ("" when it did not).
const char *CAvahiClientShims_load_error(void);

/// avahi_simple_poll_new: a poll()-based main loop, driven one iteration at a time.
AvahiSimplePoll *CAvahiClientShims_avahi_simple_poll_new(void);

/// avahi_simple_poll_get: the loop's AvahiPoll, for avahi_client_new.
const AvahiPoll *CAvahiClientShims_avahi_simple_poll_get(AvahiSimplePoll *s);

/// avahi_simple_poll_iterate: waits up to `sleep_time` ms (poll), then runs one callback.
/// 0 when it ran, 1 when a quit was requested, -1 on error (errno).
int CAvahiClientShims_avahi_simple_poll_iterate(AvahiSimplePoll *s, int sleep_time);

/// avahi_simple_poll_free.
void CAvahiClientShims_avahi_simple_poll_free(AvahiSimplePoll *s);

/// avahi_simple_poll_set_func: the poll(2) replacement the loop waits in (returns as poll does,
/// errno set on -1).
void CAvahiClientShims_avahi_simple_poll_set_func(AvahiSimplePoll *s, AvahiPollFunc func, void *userdata);

/// avahi_client_new: connects to the system bus and to avahi-daemon on it (blocking calls).
AvahiClient *CAvahiClientShims_avahi_client_new(const AvahiPoll *poll_api, AvahiClientFlags flags,
                                                AvahiClientCallback callback, void *userdata, int *error);

/// avahi_client_free: frees the client and every browser and resolver made with it.
void CAvahiClientShims_avahi_client_free(AvahiClient *client);

/// avahi_client_errno: the client's last error (AVAHI_ERR_*).
int CAvahiClientShims_avahi_client_errno(AvahiClient *client);

/// avahi_service_browser_new.
AvahiServiceBrowser *CAvahiClientShims_avahi_service_browser_new(AvahiClient *client, AvahiIfIndex interface,
                                                                 AvahiProtocol protocol, const char *type,
                                                                 const char *domain, AvahiLookupFlags flags,
                                                                 AvahiServiceBrowserCallback callback, void *userdata);

/// avahi_service_browser_free.
int CAvahiClientShims_avahi_service_browser_free(AvahiServiceBrowser *browser);

/// avahi_service_resolver_new: SRV, TXT and one address of `aprotocol` (AVAHI_PROTO_UNSPEC: either).
AvahiServiceResolver *CAvahiClientShims_avahi_service_resolver_new(AvahiClient *client, AvahiIfIndex interface,
                                                                   AvahiProtocol protocol, const char *name,
                                                                   const char *type, const char *domain,
                                                                   AvahiProtocol aprotocol, AvahiLookupFlags flags,
                                                                   AvahiServiceResolverCallback callback,
                                                                   void *userdata);

/// avahi_service_resolver_free.
int CAvahiClientShims_avahi_service_resolver_free(AvahiServiceResolver *resolver);

/// avahi_strerror: the text of an AVAHI_ERR_* code (static storage).
const char *CAvahiClientShims_avahi_strerror(int error);

/// avahi_address_snprint: an address as text (IPv4 dotted, IPv6 as inet_ntop writes it).
char *CAvahiClientShims_avahi_address_snprint(char *buffer, size_t size, const AvahiAddress *address);

/// avahi_string_list_get_next.
AvahiStringList *CAvahiClientShims_avahi_string_list_get_next(AvahiStringList *list);

/// avahi_string_list_get_text: the bytes of one TXT character-string.
uint8_t *CAvahiClientShims_avahi_string_list_get_text(AvahiStringList *list);

/// avahi_string_list_get_size: the length of one TXT character-string.
size_t CAvahiClientShims_avahi_string_list_get_size(AvahiStringList *list);

// MARK: Publishing (clawpair advertise)

/// avahi_client_get_state: RUNNING, REGISTERING or COLLISION (the daemon's own host name), FAILURE.
AvahiClientState CAvahiClientShims_avahi_client_get_state(AvahiClient *client);

/// avahi_client_get_host_name_fqdn: the daemon's host name, e.g. "box.local" (owned by the client).
const char *CAvahiClientShims_avahi_client_get_host_name_fqdn(AvahiClient *client);

/// avahi_entry_group_new: an empty group of records, published together; `callback` reports its
/// state (UNCOMMITED, REGISTERING, ESTABLISHED, COLLISION, FAILURE), the first time from within this call.
AvahiEntryGroup *CAvahiClientShims_avahi_entry_group_new(AvahiClient *client, AvahiEntryGroupCallback callback,
                                                         void *userdata);

/// avahi_entry_group_free: withdraws the group's records (goodbye packets) and frees it.
int CAvahiClientShims_avahi_entry_group_free(AvahiEntryGroup *group);

/// avahi_entry_group_commit: starts probing and announcing the group's records.
int CAvahiClientShims_avahi_entry_group_commit(AvahiEntryGroup *group);

/// avahi_entry_group_get_state.
int CAvahiClientShims_avahi_entry_group_get_state(AvahiEntryGroup *group);

/// avahi_entry_group_add_service_strlst: a service (PTR, SRV, TXT) on `interface` (AVAHI_IF_UNSPEC:
/// every one), SRV target `host` (NULL: the daemon's host name). AVAHI_ERR_COLLISION when the name
/// is already registered on this daemon.
int CAvahiClientShims_avahi_entry_group_add_service_strlst(AvahiEntryGroup *group, AvahiIfIndex interface,
                                                          AvahiProtocol protocol, AvahiPublishFlags flags,
                                                          const char *name, const char *type, const char *domain,
                                                          const char *host, uint16_t port, AvahiStringList *txt);

/// avahi_entry_group_add_address: an A or AAAA record of host `name` on `interface`.
int CAvahiClientShims_avahi_entry_group_add_address(AvahiEntryGroup *group, AvahiIfIndex interface,
                                                   AvahiProtocol protocol, AvahiPublishFlags flags, const char *name,
                                                   const AvahiAddress *address);

/// avahi_string_list_add_arbitrary: prepends one character-string (the list comes out reversed).
AvahiStringList *CAvahiClientShims_avahi_string_list_add_arbitrary(AvahiStringList *list, const uint8_t *text,
                                                                   size_t size);

/// avahi_string_list_free.
void CAvahiClientShims_avahi_string_list_free(AvahiStringList *list);

/// avahi_alternative_service_name: Avahi's next name after a conflict ("Name" -> "Name #2"),
/// allocated (free with CAvahiClientShims_avahi_free).
char *CAvahiClientShims_avahi_alternative_service_name(const char *name);

/// avahi_free.
void CAvahiClientShims_avahi_free(void *pointer);

/// avahi_address_parse: an IPv4 or IPv6 address from text (`family` AVAHI_PROTO_UNSPEC: either); NULL if invalid.
AvahiAddress *CAvahiClientShims_avahi_address_parse(const char *text, AvahiProtocol family, AvahiAddress *address);
