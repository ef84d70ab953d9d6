#include "CAvahiClientShims.h"

#include <CLazyLibrary.h>
#include <pthread.h>

// The Avahi functions clawpair calls, resolved by CAvahiClientShims_load (see CLazyLibrary.h).
#define AVAHI_FUNCTIONS(F) \
    F(avahi_simple_poll_new) F(avahi_simple_poll_get) F(avahi_simple_poll_iterate) F(avahi_simple_poll_free) \
    F(avahi_simple_poll_set_func) \
    F(avahi_client_new) F(avahi_client_free) F(avahi_client_errno) F(avahi_service_browser_new) \
    F(avahi_service_browser_free) F(avahi_service_resolver_new) F(avahi_service_resolver_free) F(avahi_strerror) \
    F(avahi_address_snprint) F(avahi_string_list_get_next) F(avahi_string_list_get_text) \
    F(avahi_string_list_get_size) \
    F(avahi_client_get_state) F(avahi_client_get_host_name_fqdn) F(avahi_entry_group_new) F(avahi_entry_group_free) \
    F(avahi_entry_group_commit) F(avahi_entry_group_get_state) F(avahi_entry_group_add_service_strlst) \
    F(avahi_entry_group_add_address) F(avahi_string_list_add_arbitrary) F(avahi_string_list_free) \
    F(avahi_alternative_service_name) F(avahi_free) F(avahi_address_parse)

static struct {
    AVAHI_FUNCTIONS(CLAZY_FIELD)
} avahi;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

static void load(void) {
    // libavahi-client needs libavahi-common (its dependency, so already loaded with it); naming
    // both lets every symbol be found whichever defines it.
    static const char *const libraries[] = {"libavahi-client.so.3", "libavahi-common.so.3"};
    static const char *const names[] = {AVAHI_FUNCTIONS(CLAZY_NAME)};
#define SLOT(name) CLAZY_SLOT(avahi, name)
    void *const slots[] = {AVAHI_FUNCTIONS(SLOT)};
#undef SLOT
    load_status = CLazyLibrary_open(libraries, sizeof libraries / sizeof *libraries, names, slots,
                                    sizeof names / sizeof *names, load_error, sizeof load_error);
}

int CAvahiClientShims_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *CAvahiClientShims_load_error(void) { return load_error; }

AvahiSimplePoll *CAvahiClientShims_avahi_simple_poll_new(void) { return avahi.avahi_simple_poll_new(); }

const AvahiPoll *CAvahiClientShims_avahi_simple_poll_get(AvahiSimplePoll *s) { return avahi.avahi_simple_poll_get(s); }

int CAvahiClientShims_avahi_simple_poll_iterate(AvahiSimplePoll *s, int sleep_time) {
    return avahi.avahi_simple_poll_iterate(s, sleep_time);
}

void CAvahiClientShims_avahi_simple_poll_free(AvahiSimplePoll *s) { avahi.avahi_simple_poll_free(s); }

void CAvahiClientShims_avahi_simple_poll_set_func(AvahiSimplePoll *s, AvahiPollFunc func, void *userdata) {
    avahi.avahi_simple_poll_set_func(s, func, userdata);
}

AvahiClient *CAvahiClientShims_avahi_client_new(const AvahiPoll *poll_api, AvahiClientFlags flags,
                                                AvahiClientCallback callback, void *userdata, int *error) {
    return avahi.avahi_client_new(poll_api, flags, callback, userdata, error);
}

void CAvahiClientShims_avahi_client_free(AvahiClient *client) { avahi.avahi_client_free(client); }

int CAvahiClientShims_avahi_client_errno(AvahiClient *client) { return avahi.avahi_client_errno(client); }

AvahiServiceBrowser *CAvahiClientShims_avahi_service_browser_new(AvahiClient *client, AvahiIfIndex interface,
                                                                 AvahiProtocol protocol, const char *type,
                                                                 const char *domain, AvahiLookupFlags flags,
                                                                 AvahiServiceBrowserCallback callback, void *userdata) {
    return avahi.avahi_service_browser_new(client, interface, protocol, type, domain, flags, callback, userdata);
}

int CAvahiClientShims_avahi_service_browser_free(AvahiServiceBrowser *browser) {
    return avahi.avahi_service_browser_free(browser);
}

AvahiServiceResolver *CAvahiClientShims_avahi_service_resolver_new(AvahiClient *client, AvahiIfIndex interface,
                                                                   AvahiProtocol protocol, const char *name,
                                                                   const char *type, const char *domain,
                                                                   AvahiProtocol aprotocol, AvahiLookupFlags flags,
                                                                   AvahiServiceResolverCallback callback,
                                                                   void *userdata) {
    return avahi.avahi_service_resolver_new(client, interface, protocol, name, type, domain, aprotocol, flags,
                                            callback, userdata);
}

int CAvahiClientShims_avahi_service_resolver_free(AvahiServiceResolver *resolver) {
    return avahi.avahi_service_resolver_free(resolver);
}

const char *CAvahiClientShims_avahi_strerror(int error) { return avahi.avahi_strerror(error); }

char *CAvahiClientShims_avahi_address_snprint(char *buffer, size_t size, const AvahiAddress *address) {
    return avahi.avahi_address_snprint(buffer, size, address);
}

AvahiStringList *CAvahiClientShims_avahi_string_list_get_next(AvahiStringList *list) {
    return avahi.avahi_string_list_get_next(list);
}

uint8_t *CAvahiClientShims_avahi_string_list_get_text(AvahiStringList *list) {
    return avahi.avahi_string_list_get_text(list);
}

size_t CAvahiClientShims_avahi_string_list_get_size(AvahiStringList *list) {
    return avahi.avahi_string_list_get_size(list);
}

AvahiClientState CAvahiClientShims_avahi_client_get_state(AvahiClient *client) {
    return avahi.avahi_client_get_state(client);
}

const char *CAvahiClientShims_avahi_client_get_host_name_fqdn(AvahiClient *client) {
    return avahi.avahi_client_get_host_name_fqdn(client);
}

AvahiEntryGroup *CAvahiClientShims_avahi_entry_group_new(AvahiClient *client, AvahiEntryGroupCallback callback,
                                                         void *userdata) {
    return avahi.avahi_entry_group_new(client, callback, userdata);
}

int CAvahiClientShims_avahi_entry_group_free(AvahiEntryGroup *group) { return avahi.avahi_entry_group_free(group); }

int CAvahiClientShims_avahi_entry_group_commit(AvahiEntryGroup *group) { return avahi.avahi_entry_group_commit(group); }

int CAvahiClientShims_avahi_entry_group_get_state(AvahiEntryGroup *group) {
    return avahi.avahi_entry_group_get_state(group);
}

int CAvahiClientShims_avahi_entry_group_add_service_strlst(AvahiEntryGroup *group, AvahiIfIndex interface,
                                                          AvahiProtocol protocol, AvahiPublishFlags flags,
                                                          const char *name, const char *type, const char *domain,
                                                          const char *host, uint16_t port, AvahiStringList *txt) {
    return avahi.avahi_entry_group_add_service_strlst(group, interface, protocol, flags, name, type, domain, host, port,
                                                      txt);
}

int CAvahiClientShims_avahi_entry_group_add_address(AvahiEntryGroup *group, AvahiIfIndex interface,
                                                   AvahiProtocol protocol, AvahiPublishFlags flags, const char *name,
                                                   const AvahiAddress *address) {
    return avahi.avahi_entry_group_add_address(group, interface, protocol, flags, name, address);
}

AvahiStringList *CAvahiClientShims_avahi_string_list_add_arbitrary(AvahiStringList *list, const uint8_t *text,
                                                                   size_t size) {
    return avahi.avahi_string_list_add_arbitrary(list, text, size);
}

void CAvahiClientShims_avahi_string_list_free(AvahiStringList *list) { avahi.avahi_string_list_free(list); }

char *CAvahiClientShims_avahi_alternative_service_name(const char *name) {
    return avahi.avahi_alternative_service_name(name);
}

void CAvahiClientShims_avahi_free(void *pointer) { avahi.avahi_free(pointer); }

AvahiAddress *CAvahiClientShims_avahi_address_parse(const char *text, AvahiProtocol family, AvahiAddress *address) {
    return avahi.avahi_address_parse(text, family, address);
}
