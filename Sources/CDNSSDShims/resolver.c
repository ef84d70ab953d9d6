#include "CDNSSDShims.h"

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/address.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

// The libavahi-client and libavahi-common functions used here, resolved once by load_avahi.
// Each pointer has the type of its declaration, so a signature mismatch is a compile error.
static struct {
    __typeof__(avahi_threaded_poll_new) *poll_new;
    __typeof__(avahi_threaded_poll_get) *poll_get;
    __typeof__(avahi_threaded_poll_start) *poll_start;
    __typeof__(avahi_threaded_poll_stop) *poll_stop;
    __typeof__(avahi_threaded_poll_lock) *poll_lock;
    __typeof__(avahi_threaded_poll_unlock) *poll_unlock;
    __typeof__(avahi_threaded_poll_free) *poll_free;
    __typeof__(avahi_client_new) *client_new;
    __typeof__(avahi_client_free) *client_free;
    __typeof__(avahi_service_resolver_new) *resolver_new;
    __typeof__(avahi_service_resolver_free) *resolver_free;
    __typeof__(avahi_service_browser_new) *browser_new;
    __typeof__(avahi_service_browser_free) *browser_free;
    __typeof__(avahi_address_snprint) *address_snprint;
    __typeof__(avahi_string_list_serialize) *txt_serialize;
} avahi;

static pthread_once_t avahi_once = PTHREAD_ONCE_INIT;
static int avahi_status = -1;

#define AVAHI_RESOLVE(library, field, name) \
    if ((avahi.field = (__typeof__(name) *)dlsym(library, #name)) == NULL) return;

static void load_avahi(void) {
    // Lazy binding, as a program linked with them gets: RTLD_NOW would bind every symbol that
    // libavahi-client, libdbus, libsystemd and libgcrypt import before the first call (~0.3 ms).
    // The functions used here are resolved below either way.
    void *common = dlopen("libavahi-common.so.3", RTLD_LAZY | RTLD_LOCAL);
    void *client = dlopen("libavahi-client.so.3", RTLD_LAZY | RTLD_LOCAL);
    if (common == NULL || client == NULL) return;
    AVAHI_RESOLVE(common, poll_new, avahi_threaded_poll_new)
    AVAHI_RESOLVE(common, poll_get, avahi_threaded_poll_get)
    AVAHI_RESOLVE(common, poll_start, avahi_threaded_poll_start)
    AVAHI_RESOLVE(common, poll_stop, avahi_threaded_poll_stop)
    AVAHI_RESOLVE(common, poll_lock, avahi_threaded_poll_lock)
    AVAHI_RESOLVE(common, poll_unlock, avahi_threaded_poll_unlock)
    AVAHI_RESOLVE(common, poll_free, avahi_threaded_poll_free)
    AVAHI_RESOLVE(common, address_snprint, avahi_address_snprint)
    AVAHI_RESOLVE(common, txt_serialize, avahi_string_list_serialize)
    AVAHI_RESOLVE(client, client_new, avahi_client_new)
    AVAHI_RESOLVE(client, client_free, avahi_client_free)
    AVAHI_RESOLVE(client, resolver_new, avahi_service_resolver_new)
    AVAHI_RESOLVE(client, resolver_free, avahi_service_resolver_free)
    AVAHI_RESOLVE(client, browser_new, avahi_service_browser_new)
    AVAHI_RESOLVE(client, browser_free, avahi_service_browser_free)
    avahi_status = 0;
}

/// A started resolution, in a list so that cancel can find it by tag.
struct running {
    struct running *next;
    uint64_t tag;
    AvahiServiceResolver *resolver;
    CDNSSDShims_Resolver *owner;
    /// Resolving for either address family: the first answer starts a resolution for the other.
    int follow_up;
    /// Started by the browse callback: the instance it resolves, for spotting the same instance
    /// browsed again (another protocol); NULL for a follow-up or a CDNSSDShims_resolver_start.
    AvahiIfIndex interface;
    char *instance;
};

/// Frees a resolution's entry (its Avahi resolver must be freed or stopped already).
static void free_running(struct running *entry) {
    free(entry->instance);
    free(entry);
}

/// A queued answer.
struct queued {
    struct queued *next;
    CDNSSDShims_Resolution resolution;
};

struct CDNSSDShims_Resolver {
    AvahiThreadedPoll *poll;
    AvahiClient *client;
    /// The browse of CDNSSDShims_resolver_browse, if any (guarded by the threaded poll's lock).
    AvahiServiceBrowser *browser;
    /// How many instances the browse callback may be resolving at once, and its next tag
    /// (guarded by the threaded poll's lock).
    unsigned resolve_limit;
    uint64_t next_tag;
    /// Guarded by the threaded poll's lock (Avahi's thread holds it while calling back).
    struct running *running;
    /// The queue and the pipe, guarded by `queue_lock`.
    pthread_mutex_t queue_lock;
    struct queued *head, *tail;
    int pipe_read, pipe_write;
};

static void push(CDNSSDShims_Resolver *owner, const CDNSSDShims_Resolution *resolution) {
    struct queued *item = calloc(1, sizeof *item);
    if (item == NULL) {
        free(resolution->txt);
        return;
    }
    item->resolution = *resolution;
    pthread_mutex_lock(&owner->queue_lock);
    if (owner->tail) owner->tail->next = item; else owner->head = item;
    owner->tail = item;
    pthread_mutex_unlock(&owner->queue_lock);
    char byte = 1;
    // The pipe is non-blocking: when it is full a wake-up is already pending.
    ssize_t ignored = write(owner->pipe_write, &byte, 1);
    (void)ignored;
}

static void resolver_callback(AvahiServiceResolver *r, AvahiIfIndex interface, AvahiProtocol protocol,
                              AvahiResolverEvent event, const char *name, const char *type, const char *domain,
                              const char *host_name, const AvahiAddress *address, uint16_t port, AvahiStringList *txt,
                              AvahiLookupResultFlags flags, void *userdata);

/// A string copied into a fixed buffer with a trailing dot added, as the compat layer reports names.
static void copy_dotted(char *buffer, size_t size, const char *text) {
    size_t length = text != NULL ? strlen(text) : 0;
    if (length > size - 2) length = size - 2;
    if (length > 0) memcpy(buffer, text, length);
    if (length > 0 && buffer[length - 1] != '.') buffer[length++] = '.';
    buffer[length] = 0;
}

static void client_callback(AvahiClient *client, AvahiClientState state, void *userdata) {
    (void)client;
    CDNSSDShims_Resolver *owner = userdata;
    // A daemon that goes away ends a browse, as the compat layer reports it (kDNSServiceErr_Unknown).
    if (state == AVAHI_CLIENT_FAILURE && owner->browser != NULL) {
        CDNSSDShims_Resolution event;
        memset(&event, 0, sizeof event);
        event.kind = CDNSSDShims_EventBrowseFailed;
        event.status = kDNSServiceErr_Unknown;
        push(owner, &event);
    }
}

static int start_locked(CDNSSDShims_Resolver *resolver, struct running *entry, AvahiIfIndex index,
                        AvahiProtocol protocol, const char *name, const char *type, const char *domain,
                        AvahiProtocol aprotocol);

/// `name`, `type` and `domain` joined with NUL bytes into one allocation (NULL when out of memory).
static char *instance_key(const char *name, const char *type, const char *domain, size_t *length) {
    size_t a = strlen(name), b = strlen(type), c = strlen(domain);
    char *key = malloc(a + b + c + 3);
    if (key == NULL) return NULL;
    memcpy(key, name, a + 1);
    memcpy(key + a + 1, type, b + 1);
    memcpy(key + a + b + 2, domain, c + 1);
    *length = a + b + c + 3;
    return key;
}

/// The tag resolving a newly browsed instance, started here on Avahi's thread (lock held) so the
/// request goes out with no hand-off to the caller's thread: the running resolution of the same
/// instance (browsed again for another protocol), else a new one while under the limit; 0 when
/// none (the caller may start one itself).
static uint64_t resolve_browsed(CDNSSDShims_Resolver *owner, AvahiIfIndex interface, AvahiProtocol protocol,
                                const char *name, const char *type, const char *domain) {
    if (owner->resolve_limit == 0 || name == NULL || type == NULL || domain == NULL) return 0;
    size_t length = 0;
    char *key = instance_key(name, type, domain, &length);
    if (key == NULL) return 0;
    unsigned started = 0;
    for (struct running *entry = owner->running; entry != NULL; entry = entry->next) {
        if (entry->instance == NULL) continue;
        started++;
        if (entry->interface == interface && memcmp(entry->instance, key, length) == 0) {
            free(key);
            return entry->tag;
        }
    }
    struct running *entry = calloc(1, sizeof *entry);
    if (started >= owner->resolve_limit || entry == NULL) {
        free(entry);
        free(key);
        return 0;
    }
    entry->tag = owner->next_tag++;
    entry->owner = owner;
    entry->follow_up = 1;
    entry->interface = interface;
    entry->instance = key;
    if (start_locked(owner, entry, interface, protocol, name, type, domain, AVAHI_PROTO_UNSPEC) != 0) {
        free_running(entry);
        return 0;
    }
    return entry->tag;
}

static void browser_callback(AvahiServiceBrowser *b, AvahiIfIndex interface, AvahiProtocol protocol,
                             AvahiBrowserEvent event, const char *name, const char *type, const char *domain,
                             AvahiLookupResultFlags flags, void *userdata) {
    (void)b; (void)flags;
    CDNSSDShims_Resolver *owner = userdata;
    CDNSSDShims_Resolution item;
    memset(&item, 0, sizeof item);
    switch (event) {
    case AVAHI_BROWSER_NEW:
    case AVAHI_BROWSER_REMOVE:
        item.kind = event == AVAHI_BROWSER_NEW ? CDNSSDShims_EventBrowseAdded : CDNSSDShims_EventBrowseRemoved;
        item.interface = interface < 0 ? 0 : (uint32_t)interface;
        size_t length = name != NULL ? strlen(name) : 0;
        if (length > sizeof item.name - 1) length = sizeof item.name - 1;
        if (length > 0) memcpy(item.name, name, length);
        copy_dotted(item.type, sizeof item.type, type);
        copy_dotted(item.host, sizeof item.host, domain);
        if (event == AVAHI_BROWSER_NEW) item.tag = resolve_browsed(owner, interface, protocol, name, type, domain);
        break;
    case AVAHI_BROWSER_FAILURE:
        item.kind = CDNSSDShims_EventBrowseFailed;
        item.status = kDNSServiceErr_Unknown;
        break;
    default:
        return;
    }
    push(owner, &item);
}

/// Starts one resolution of `entry`'s tag; called with the threaded poll's lock held.
/// The queued browse event goes out after this (callbacks run on the same thread), so the
/// resolution's answers always follow the event that names their tag.
static int start_locked(CDNSSDShims_Resolver *resolver, struct running *entry, AvahiIfIndex index,
                        AvahiProtocol protocol, const char *name, const char *type, const char *domain,
                        AvahiProtocol aprotocol) {
    entry->resolver = avahi.resolver_new(resolver->client, index, protocol, name, type, domain, aprotocol, 0,
                                         resolver_callback, entry);
    if (entry->resolver == NULL) return -1;
    entry->next = resolver->running;
    resolver->running = entry;
    return 0;
}

static void resolver_callback(AvahiServiceResolver *r, AvahiIfIndex interface, AvahiProtocol protocol,
                              AvahiResolverEvent event, const char *name, const char *type, const char *domain,
                              const char *host_name, const AvahiAddress *address, uint16_t port, AvahiStringList *txt,
                              AvahiLookupResultFlags flags, void *userdata) {
    (void)r; (void)protocol; (void)flags;
    struct running *entry = userdata;
    CDNSSDShims_Resolution resolution;
    memset(&resolution, 0, sizeof resolution);
    resolution.tag = entry->tag;
    if (event == AVAHI_RESOLVER_FOUND && host_name != NULL && address != NULL) {
        resolution.found = 1;
        size_t length = strlen(host_name);
        if (length > sizeof resolution.host - 2) length = sizeof resolution.host - 2;
        memcpy(resolution.host, host_name, length);
        if (length == 0 || resolution.host[length - 1] != '.') resolution.host[length++] = '.';
        resolution.host[length] = 0;
        resolution.port = port;
        avahi.address_snprint(resolution.address, sizeof resolution.address, address);
        size_t size = avahi.txt_serialize(txt, NULL, 0);
        if (size > 0 && (resolution.txt = malloc(size)) != NULL) {
            resolution.txt_length = avahi.txt_serialize(txt, resolution.txt, size);
        }
    }
    push(entry->owner, &resolution);
    // The first address of either family is in (handed over above); now the other family's, so
    // that the addresses of both families are known, as from one resolution per family.
    if (resolution.found && entry->follow_up) {
        entry->follow_up = 0;
        struct running *other = calloc(1, sizeof *other);
        if (other != NULL) {
            other->tag = entry->tag;
            other->owner = entry->owner;
            AvahiProtocol aprotocol = address->proto == AVAHI_PROTO_INET6 ? AVAHI_PROTO_INET : AVAHI_PROTO_INET6;
            if (start_locked(entry->owner, other, interface, AVAHI_PROTO_UNSPEC, name, type, domain, aprotocol) != 0) {
                free_running(other);
            }
        }
    }
}

/// A connected client whose Avahi thread is not started yet (nothing is dispatched until then;
/// replies and signals wait in the D-Bus connection).
static CDNSSDShims_Resolver *open_client(void) {
    pthread_once(&avahi_once, load_avahi);
    if (avahi_status != 0) return NULL;
    CDNSSDShims_Resolver *resolver = calloc(1, sizeof *resolver);
    if (resolver == NULL) return NULL;
    int ends[2];
    if (pipe(ends) != 0) {
        free(resolver);
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(ends[i], F_SETFD, FD_CLOEXEC);
        fcntl(ends[i], F_SETFL, fcntl(ends[i], F_GETFL) | O_NONBLOCK);
    }
    resolver->pipe_read = ends[0];
    resolver->pipe_write = ends[1];
    pthread_mutex_init(&resolver->queue_lock, NULL);
    int error = 0;
    if ((resolver->poll = avahi.poll_new()) == NULL ||
        (resolver->client = avahi.client_new(avahi.poll_get(resolver->poll), 0, client_callback, resolver, &error)) == NULL) {
        CDNSSDShims_resolver_close(resolver);
        return NULL;
    }
    return resolver;
}

CDNSSDShims_Resolver *CDNSSDShims_resolver_open(void) {
    CDNSSDShims_Resolver *resolver = open_client();
    if (resolver != NULL && avahi.poll_start(resolver->poll) < 0) {
        CDNSSDShims_resolver_close(resolver);
        return NULL;
    }
    return resolver;
}

int CDNSSDShims_resolver_fd(CDNSSDShims_Resolver *resolver) { return resolver->pipe_read; }

int CDNSSDShims_resolver_browse(CDNSSDShims_Resolver *resolver, const char *type, const char *domain,
                                unsigned resolve_limit) {
    avahi.poll_lock(resolver->poll);
    if (resolver->browser == NULL) {
        resolver->resolve_limit = resolve_limit;
        resolver->next_tag = CDNSSDShims_BrowseTagBase;
        resolver->browser = avahi.browser_new(resolver->client, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, type, domain, 0,
                                              browser_callback, resolver);
    }
    int status = resolver->browser != NULL ? 0 : -1;
    avahi.poll_unlock(resolver->poll);
    return status;
}

/// The resolver of CDNSSDShims_resolver_prestart and what it was started with, until taken.
static struct {
    pthread_mutex_t lock;
    CDNSSDShims_Resolver *resolver;
    char *type, *domain;
    unsigned resolve_limit;
} prestarted = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, NULL, 0};

static int same_text(const char *a, const char *b) {
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int CDNSSDShims_resolver_prestart(const char *type, const char *domain, unsigned resolve_limit) {
    pthread_mutex_lock(&prestarted.lock);
    int status = -1;
    if (prestarted.resolver == NULL && type != NULL) {
        char *type_copy = strdup(type);
        char *domain_copy = domain != NULL ? strdup(domain) : NULL;
        CDNSSDShims_Resolver *resolver = NULL;
        // The browse request goes out before the Avahi thread is started: one thread creation
        // less before it.
        if (type_copy != NULL && (domain == NULL || domain_copy != NULL) && (resolver = open_client()) != NULL &&
            CDNSSDShims_resolver_browse(resolver, type, domain, resolve_limit) == 0 &&
            avahi.poll_start(resolver->poll) == 0) {
            prestarted.resolver = resolver;
            prestarted.type = type_copy;
            prestarted.domain = domain_copy;
            prestarted.resolve_limit = resolve_limit;
            status = 0;
        } else {
            CDNSSDShims_resolver_close(resolver);
            free(type_copy);
            free(domain_copy);
        }
    }
    pthread_mutex_unlock(&prestarted.lock);
    return status;
}

CDNSSDShims_Resolver *CDNSSDShims_resolver_take(const char *type, const char *domain, unsigned resolve_limit) {
    pthread_mutex_lock(&prestarted.lock);
    CDNSSDShims_Resolver *taken = NULL;
    if (prestarted.resolver != NULL && same_text(prestarted.type, type) && same_text(prestarted.domain, domain) &&
        prestarted.resolve_limit == resolve_limit) {
        taken = prestarted.resolver;
        prestarted.resolver = NULL;
        free(prestarted.type);
        free(prestarted.domain);
        prestarted.type = prestarted.domain = NULL;
    }
    pthread_mutex_unlock(&prestarted.lock);
    return taken;
}

int CDNSSDShims_resolver_start(CDNSSDShims_Resolver *resolver, uint64_t tag, uint32_t interface, const char *name,
                               const char *type, const char *domain, int family) {
    struct running *entry = calloc(1, sizeof *entry);
    if (entry == NULL) return -1;
    entry->tag = tag;
    entry->owner = resolver;
    entry->follow_up = family == AF_UNSPEC;
    AvahiProtocol aprotocol = family == AF_INET6 ? AVAHI_PROTO_INET6 : family == AF_INET ? AVAHI_PROTO_INET : AVAHI_PROTO_UNSPEC;
    AvahiIfIndex index = interface == 0 ? AVAHI_IF_UNSPEC : (AvahiIfIndex)interface;
    avahi.poll_lock(resolver->poll);
    int status = start_locked(resolver, entry, index, AVAHI_PROTO_UNSPEC, name, type, domain, aprotocol);
    avahi.poll_unlock(resolver->poll);
    if (status != 0) free_running(entry);
    return status;
}

void CDNSSDShims_resolver_cancel(CDNSSDShims_Resolver *resolver, uint64_t tag) {
    avahi.poll_lock(resolver->poll);
    for (struct running **link = &resolver->running; *link != NULL;) {
        struct running *entry = *link;
        if (entry->tag == tag) {
            *link = entry->next;
            avahi.resolver_free(entry->resolver);
            free_running(entry);
        } else {
            link = &entry->next;
        }
    }
    avahi.poll_unlock(resolver->poll);
}

int CDNSSDShims_resolver_next(CDNSSDShims_Resolver *resolver, CDNSSDShims_Resolution *out) {
    char drain[64];
    while (read(resolver->pipe_read, drain, sizeof drain) > 0) {}
    pthread_mutex_lock(&resolver->queue_lock);
    struct queued *item = resolver->head;
    if (item != NULL) {
        resolver->head = item->next;
        if (resolver->head == NULL) resolver->tail = NULL;
    }
    pthread_mutex_unlock(&resolver->queue_lock);
    if (item == NULL) return 0;
    *out = item->resolution;
    free(item);
    return 1;
}

void CDNSSDShims_resolution_free(CDNSSDShims_Resolution *resolution) {
    free(resolution->txt);
    resolution->txt = NULL;
    resolution->txt_length = 0;
}

void CDNSSDShims_resolver_close(CDNSSDShims_Resolver *resolver) {
    if (resolver == NULL) return;
    if (resolver->poll != NULL) avahi.poll_stop(resolver->poll);
    // The thread is stopped: no callback runs any more.
    if (resolver->browser != NULL) avahi.browser_free(resolver->browser);
    for (struct running *entry = resolver->running; entry != NULL;) {
        struct running *next = entry->next;
        avahi.resolver_free(entry->resolver);
        free_running(entry);
        entry = next;
    }
    if (resolver->client != NULL) avahi.client_free(resolver->client);
    if (resolver->poll != NULL) avahi.poll_free(resolver->poll);
    for (struct queued *item = resolver->head; item != NULL;) {
        struct queued *next = item->next;
        free(item->resolution.txt);
        free(item);
        item = next;
    }
    close(resolver->pipe_read);
    close(resolver->pipe_write);
    pthread_mutex_destroy(&resolver->queue_lock);
    free(resolver);
}
